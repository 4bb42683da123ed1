import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allStatuses } from '../../machines/crop.machine.ts'
import type { TestApp } from '../helper.ts'
import { as, cropsApp, moveTo, newCrop, type Call } from './client.ts'

const near = (iso: string, ms = 10_000) => Math.abs(Date.parse(iso) - Date.now()) < ms

describe.each(['redis', 'memory'] as const)('crops API (%s)', (store) => {
  let t: TestApp
  let grower: Call
  let admin: Call

  beforeAll(async () => {
    t = await cropsApp(store)
    grower = await as(t, 'grower')
    admin = await as(t, 'admin')
  })
  afterAll(async () => { await t.close() })

  describe('create and read', () => {
    it('creates with defaults: IDEATING, plantedAt now, one open history entry', async () => {
      const res = await grower('POST', '/api/crops', { name: 'Minimal', strain: 'strain_norte_gelato' })
      expect(res.status).toBe(201)
      const { crop } = res.body
      expect(crop).toEqual({
        id: expect.stringMatching(/^crop_/),
        name: 'Minimal',
        strain: { id: 'strain_norte_gelato', name: 'Gelato' },
        status: 'IDEATING',
        plantedAt: crop.createdAt,
        expectedYield: null,
        createdAt: expect.any(String),
      })
      expect(near(crop.createdAt)).toBe(true)
      const full = (await grower('GET', `/api/crops/${crop.id}`)).body.crop
      expect(full.statusHistory).toEqual([{ status: 'IDEATING', start: crop.createdAt, end: '' }])
      expect(full).toMatchObject({
        timeline: [], plants: [], spaces: [], lights: [], pot: null, seed: null, expectedHarvestDate: null, updatedAt: crop.createdAt
      })
    })

    it('creates with every field; dates are normalised to UTC ISO 8601; plants named on create exist', async () => {
      const res = await admin('POST', '/api/crops', {
        name: 'Full',
        strain: 'strain_norte_amnesia',
        status: 'VEGETATING',
        plantedAt: '2024-03-01',
        expectedYield: 850.5,
        expectedHarvestDate: '2024-06-01T12:00:00-03:00',
        pot: { milliliters: 11000, substrate: [{ type: 'COCO', percentage: 70 }, { type: 'PERLITE', percentage: 30 }] },
        plants: ['tag-1', 'tag-2'],
        seed: 'seed_amnesia_fem',
        spaces: ['space_norte_vege', 'space_norte_flora'],
        lights: ['light_norte_led_1'],
      })
      expect(res.status).toBe(201)
      expect(res.body.crop).toMatchObject({ status: 'VEGETATING', plantedAt: '2024-03-01T00:00:00.000Z', expectedYield: 850.5 })
      const full = (await admin('GET', `/api/crops/${res.body.crop.id}`)).body.crop
      expect(full).toMatchObject({
        expectedHarvestDate: '2024-06-01T15:00:00.000Z',
        plants: ['tag-1', 'tag-2'],
        seed: { id: 'seed_amnesia_fem' },
        spaces: [{ id: 'space_norte_vege', name: 'Sala de vegetativo' }, { id: 'space_norte_flora', name: 'Sala de floración' }],
        lights: [{ id: 'light_norte_led_1', name: 'LED 480 W', type: 'LED' }],
        pot: { milliliters: 11000, substrate: [{ type: 'COCO', percentage: 70 }, { type: 'PERLITE', percentage: 30 }] },
        statusHistory: [{ status: 'VEGETATING', end: '' }],
      })
      const plants = (await admin('GET', `/api/crops/${res.body.crop.id}/plants`)).body
      expect(plants).toEqual({
        count: 2,
        plants: [
          { id: 'tag-1', code: 'tag-1', status: 'ACTIVE', cropId: res.body.crop.id },
          { id: 'tag-2', code: 'tag-2', status: 'ACTIVE', cropId: res.body.crop.id },
        ]
      })
    })

    it('an unknown strain with strainName joins the catalog; without it is 400 on strain', async () => {
      const res = await grower('POST', '/api/crops', { name: 'New strain', strain: 'strain_norte_purple', strainName: 'Purple Punch' })
      expect(res.status).toBe(201)
      expect(res.body.crop.strain).toEqual({ id: 'strain_norte_purple', name: 'Purple Punch' })
      const strains = (await grower('GET', '/api/strains')).body
      expect(strains.strains).toContainEqual({ id: 'strain_norte_purple', name: 'Purple Punch', type: 'UNKNOWN', cannabinoids: { thc: 0, cbd: 0 } })
      expect(strains.count).toBe(strains.strains.length)
      const bad = await grower('POST', '/api/crops', { name: 'Nope', strain: 'strain_unknown' })
      expect(bad.status).toBe(400)
      expect(bad.body.error.code).toBe('VALIDATION_ERROR')
      expect(bad.body.error.details.errors.strain[0]).toMatch(/strain_unknown.*strainName/)
    })

    it('a known strain keeps its catalog name whatever strainName says', async () => {
      const res = await grower('POST', '/api/crops', { name: 'Known', strain: 'strain_norte_gelato', strainName: 'Something else' })
      expect(res.body.crop.strain).toEqual({ id: 'strain_norte_gelato', name: 'Gelato' })
    })

    it('unknown spaces and lights are 400 naming the position', async () => {
      const res = await grower('POST', '/api/crops', {
        name: 'X', strain: 'strain_norte_gelato', spaces: ['space_norte_vege', 'space_nope'], lights: ['light_nope']
      })
      expect(res.status).toBe(400)
      expect(res.body.error.details.errors).toEqual({ 'spaces.1': [expect.stringContaining('space_nope')] })
      const lights = await grower('POST', '/api/crops', { name: 'X', strain: 'strain_norte_gelato', lights: ['light_nope'] })
      expect(lights.body.error.details.errors).toHaveProperty(['lights.0'])
    })

    it('an unknown crop is 404, a malformed id 400', async () => {
      const res = await grower('GET', '/api/crops/crop_missing')
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Crop not found' } })
      const bad = await grower('GET', '/api/crops/bad%20id')
      expect(bad.status).toBe(400)
      expect(bad.body.error.details.errors).toHaveProperty('cropId')
    })
  })

  describe('list', () => {
    let ids: Record<string, string>
    const t2 = () => t
    beforeAll(async () => {
      const call = await as(t2(), 'grower', 'club-sur')
      ids = {
        blue: await newCrop(call, { name: 'Blue Dream Indoor', strain: 'strain_sur_gelato', status: 'VEGETATING', spaces: ['space_sur_indoor'] }),
        patio: await newCrop(call, { name: 'Patio Gelato', strain: 'strain_sur_gelato', spaces: ['space_sur_patio'] }),
        cbd: await newCrop(call, { name: 'CBD indoor', strain: 'strain_sur_charlotte', status: 'VEGETATING', spaces: ['space_sur_indoor', 'space_sur_patio'] }),
      }
    })

    const list = async (query: string) => {
      const res = await (await as(t, 'admin', 'club-sur'))('GET', `/api/crops${query}`)
      expect(res.status).toBe(200)
      return res.body
    }
    const names = (body: { crops: Array<{ id: string }> }) => body.crops.map((c) => c.id)

    it('lists the club\'s crops newest first as summaries, with count and no filters', async () => {
      const body = await list('')
      expect(names(body).slice(0, 3)).toEqual([ids.cbd, ids.patio, ids.blue])
      expect(body.count).toBe(body.crops.length)
      expect(body.filters).toEqual({})
      expect(Object.keys(body.crops[0]).sort()).toEqual(['id', 'name', 'plantedAt', 'status', 'strain'])
    })

    it('filters combine and are echoed', async () => {
      expect(names(await list('?status=VEGETATING'))).toEqual(expect.arrayContaining([ids.blue, ids.cbd]))
      expect(names(await list('?status=VEGETATING'))).not.toContain(ids.patio)
      const both = await list('?status=VEGETATING&strain=strain_sur_gelato')
      expect(names(both)).toEqual([ids.blue])
      expect(both.filters).toEqual({ status: 'VEGETATING', strain: 'strain_sur_gelato' })
      expect(names(await list('?spaceId=space_sur_patio'))).toEqual([ids.cbd, ids.patio])
      const all = await list('?spaceId=space_sur_indoor&search=INDOOR&strain=strain_sur_charlotte&status=VEGETATING')
      expect(names(all)).toEqual([ids.cbd])
      expect(all.filters).toEqual({ spaceId: 'space_sur_indoor', search: 'INDOOR', strain: 'strain_sur_charlotte', status: 'VEGETATING' })
      expect((await list('?search=nothing-like-this')).count).toBe(0)
      expect((await list('?search=')).filters).toEqual({})
    })

    it('pages with limit and offset; count is the total', async () => {
      const page = await list('?spaceId=space_sur_patio&limit=1&offset=1')
      expect(names(page)).toEqual([ids.patio])
      expect(page).toMatchObject({ count: 2, limit: 1, offset: 1 })
      expect(await list('?spaceId=space_sur_patio&limit=0')).toMatchObject({ crops: [], count: 2 })
    })

    it('rejects bad filters with 400 keyed by field', async () => {
      const call = await as(t, 'admin', 'club-sur')
      for (const [query, field] of [
        ['status=GROWING', 'status'], ['limit=-1', 'limit'], ['limit=abc', 'limit'], ['offset=-2', 'offset'], ['strain=bad%20id', 'strain'],
        [`search=${'x'.repeat(101)}`, 'search']
      ]) {
        const res = await call('GET', `/api/crops?${query}`)
        expect(res.status, query).toBe(400)
        expect(res.body.error.code).toBe('VALIDATION_ERROR')
        expect(res.body.error.details.errors).toHaveProperty([field as string])
      }
    })
  })

  describe('update and delete', () => {
    it('PATCH answers the id, the changed fields and updatedAt', async () => {
      const id = await newCrop(grower, { expectedYield: 100 })
      const res = await grower('PATCH', `/api/crops/${id}`, { expectedYield: 450, expectedHarvestDate: '2030-01-15', spaces: ['space_norte_flora'] })
      expect(res.status).toBe(200)
      expect(res.body.crop).toEqual({
        id,
        expectedYield: 450,
        expectedHarvestDate: '2030-01-15T00:00:00.000Z',
        spaces: [{ id: 'space_norte_flora', name: 'Sala de floración' }],
        updatedAt: expect.any(String),
      })
      const full = (await grower('GET', `/api/crops/${id}`)).body.crop
      expect(full).toMatchObject({ expectedYield: 450, status: 'IDEATING', updatedAt: res.body.crop.updatedAt })
      expect(Date.parse(full.updatedAt)).toBeGreaterThanOrEqual(Date.parse(full.createdAt))
      const cleared = await grower('PATCH', `/api/crops/${id}`, { expectedYield: null, seed: 'seed_1', name: 'Renamed' })
      expect(cleared.body.crop).toMatchObject({ expectedYield: null, seed: { id: 'seed_1' }, name: 'Renamed' })
    })

    it('PATCH refuses status, an empty body, unknown spaces and unknown crops', async () => {
      const id = await newCrop(grower)
      const status = await grower('PATCH', `/api/crops/${id}`, { status: 'FINISHED' })
      expect(status.status).toBe(400)
      expect(status.body.error.details.errors.status[0]).toMatch(/status route|\/status/)
      expect((await grower('PATCH', `/api/crops/${id}`, {})).status).toBe(400)
      expect((await grower('PATCH', `/api/crops/${id}`, { spaces: ['space_nope'] })).body.error.details.errors).toHaveProperty(['spaces.0'])
      expect((await grower('PATCH', '/api/crops/crop_missing', { name: 'x' })).status).toBe(404)
      expect((await grower('GET', `/api/crops/${id}`)).body.crop.status).toBe('IDEATING')
    })

    it('PATCH corrects the strain like create names it (catalog id, or a new id with strainName)', async () => {
      const id = await newCrop(grower, { name: 'Mislabelled' })
      const res = await grower('PATCH', `/api/crops/${id}`, { strain: 'strain_norte_amnesia' })
      expect(res.status).toBe(200)
      expect(res.body.crop).toEqual({ id, strain: { id: 'strain_norte_amnesia', name: 'Amnesia Haze' }, updatedAt: expect.any(String) })
      expect((await grower('GET', `/api/crops/${id}`)).body.crop.strain).toEqual({ id: 'strain_norte_amnesia', name: 'Amnesia Haze' })
      const listed = (await grower('GET', '/api/crops?strain=strain_norte_amnesia&search=mislabelled')).body
      expect(listed.crops.map((c: { id: string }) => c.id)).toEqual([id])
      const added = await grower('PATCH', `/api/crops/${id}`, { strain: 'strain_norte_zkittlez', strainName: 'Zkittlez' })
      expect(added.body.crop).toEqual({ id, strain: { id: 'strain_norte_zkittlez', name: 'Zkittlez' }, updatedAt: expect.any(String) })
      const unknown = await grower('PATCH', `/api/crops/${id}`, { strain: 'strain_unknown' })
      expect(unknown.status).toBe(400)
      expect(unknown.body.error.details.errors.strain[0]).toMatch(/strainName/)
      expect((await grower('GET', `/api/crops/${id}`)).body.crop.strain.id).toBe('strain_norte_zkittlez')
      expect((await grower('PATCH', `/api/crops/${id}`, { strainName: 'Alone' })).body.error.details.errors).toHaveProperty('strainName')
      const missing = await grower('PATCH', '/api/crops/crop_missing', { strain: 'strain_norte_ghost', strainName: 'Ghost' })
      expect(missing.status).toBe(404)
      expect((await grower('GET', '/api/strains')).body.strains.map((s: { id: string }) => s.id)).not.toContain('strain_norte_ghost')
    })

    it('PATCH refuses plants with a pointer to the plants route, instead of ignoring them', async () => {
      const id = await newCrop(grower)
      const res = await grower('PATCH', `/api/crops/${id}`, { name: 'Renamed', plants: ['tag-9'] })
      expect(res.status).toBe(400)
      expect(res.body.error.details.errors.plants[0]).toMatch(/\/plants/)
      expect((await grower('GET', `/api/crops/${id}`)).body.crop).toMatchObject({ name: 'Test crop', plants: [] })
    })

    it('DELETE removes the crop with its plants and harvests', async () => {
      const id = await newCrop(grower, { status: 'FLOWERING', plants: ['p1'] })
      await grower('POST', `/api/crops/${id}/harvest`, { wetWeight: 10, continueFlowering: true })
      const res = await grower('DELETE', `/api/crops/${id}`)
      expect(res).toEqual({ status: 200, body: { success: true } })
      for (const path of ['', '/plants', '/harvest', '/status', '/complete']) expect((await grower('GET', `/api/crops/${id}${path}`)).status).toBe(404)
      expect((await grower('DELETE', `/api/crops/${id}`)).status).toBe(404)
    })
  })

  describe('status', () => {
    it('walks the whole lifecycle; history closes at each move; FINISHED allows nothing', async () => {
      const id = await newCrop(grower)
      const path = ['PROPAGATING', 'VEGETATING', 'FLOWERING', 'HARVESTING', 'DRYING', 'MANICURING', 'CURING', 'FINISHED'] as const
      let from = 'IDEATING'
      for (const newStatus of path) {
        const res = await grower('POST', `/api/crops/${id}/status`, { newStatus })
        expect(res.status).toBe(200)
        const { crop, transition } = res.body
        expect(transition).toEqual({ from, to: newStatus, timestamp: expect.any(String) })
        expect(near(transition.timestamp)).toBe(true)
        expect(crop.status).toBe(newStatus)
        const history = crop.statusHistory
        expect(history.filter((e: { end: string }) => e.end === '')).toEqual([{ status: newStatus, start: transition.timestamp, end: '' }])
        expect(history.at(-2)).toMatchObject({ status: from, end: transition.timestamp })
        from = newStatus
      }
      const status = (await grower('GET', `/api/crops/${id}/status`)).body
      expect(status).toMatchObject({ currentStatus: 'FINISHED', validTransitions: [], allStatuses: [...allStatuses], isFrozen: true })
      expect(status.statusHistory.map((e: { status: string }) => e.status)).toEqual(['IDEATING', ...path])
      const timeline = (await grower('GET', `/api/crops/${id}`)).body.crop.timeline
      expect(timeline).toHaveLength(path.length)
      expect(timeline[0]).toMatchObject({ type: 'OBSERVATION', data: { fromStatus: 'IDEATING', toStatus: 'PROPAGATING' }, author: { id: 'test-grower' } })
      const refused = await grower('POST', `/api/crops/${id}/status`, { newStatus: 'CURING' })
      expect(refused.status).toBe(409)
      expect(refused.body).toEqual({ error: expect.stringMatching(/FINISHED.*CURING.*none/), currentStatus: 'FINISHED', validTransitions: [] })
    })

    it('an invalid move is 409 with the flat body and changes nothing', async () => {
      const id = await newCrop(grower, { status: 'FLOWERING' })
      for (const newStatus of allStatuses.filter((s) => s !== 'HARVESTING')) {
        const res = await grower('POST', `/api/crops/${id}/status`, { newStatus })
        expect(res.status).toBe(409)
        expect(res.body).toEqual({ error: expect.any(String), currentStatus: 'FLOWERING', validTransitions: ['HARVESTING'] })
        expect(res.body.error).toContain('FLOWERING')
        expect(res.body.error).toContain(newStatus)
        expect(res.body.error).toContain('HARVESTING')
      }
      const crop = (await grower('GET', `/api/crops/${id}`)).body.crop
      expect(crop.statusHistory).toHaveLength(1)
      expect(crop.timeline).toHaveLength(0)
    })

    it('GET status reports the valid targets and frozen flag of each status', async () => {
      const id = await newCrop(grower)
      const res = await grower('GET', `/api/crops/${id}/status`)
      expect(res.body).toEqual({
        currentStatus: 'IDEATING',
        validTransitions: ['PROPAGATING', 'VEGETATING'],
        allStatuses: [...allStatuses],
        statusHistory: [expect.objectContaining({ status: 'IDEATING', end: '' })],
        isFrozen: false,
      })
      await moveTo(grower, id, 'VEGETATING', 'FLOWERING', 'HARVESTING', 'DRYING')
      expect((await grower('GET', `/api/crops/${id}/status`)).body).toMatchObject({ validTransitions: ['MANICURING', 'CURING'], isFrozen: true })
    })

    it('notes and author of a move go to its timeline entry; bad bodies are 400', async () => {
      const id = await newCrop(grower)
      await grower('POST', `/api/crops/${id}/status`, { newStatus: 'PROPAGATING', notes: 'Esquejes listos', author: { id: 'u9', name: 'Marta' } })
      const entry = (await grower('GET', `/api/crops/${id}`)).body.crop.timeline[0]
      expect(entry).toMatchObject({ notes: 'Esquejes listos', author: { id: 'u9', name: 'Marta' } })
      for (const body of [{}, { newStatus: 'GROWING' }, { newStatus: 'VEGETATING', author: { name: '' } }, { newStatus: 'VEGETATING', notes: 5 }]) {
        const res = await grower('POST', `/api/crops/${id}/status`, body)
        expect(res.status).toBe(400)
        expect(res.body.error.code).toBe('VALIDATION_ERROR')
      }
      expect((await grower('POST', '/api/crops/crop_missing/status', { newStatus: 'VEGETATING' })).status).toBe(404)
    })

    it('the same move sent twice at once: one wins, the other is judged against the new status', async () => {
      const id = await newCrop(grower)
      const [a, b] = await Promise.all([
        grower('POST', `/api/crops/${id}/status`, { newStatus: 'PROPAGATING' }),
        grower('POST', `/api/crops/${id}/status`, { newStatus: 'PROPAGATING' }),
      ])
      expect([a.status, b.status].sort()).toEqual([200, 409])
      expect([a, b].find((r) => r.status === 409)?.body).toMatchObject({ currentStatus: 'PROPAGATING', validTransitions: ['VEGETATING'] })
      const crop = (await grower('GET', `/api/crops/${id}`)).body.crop
      expect(crop.statusHistory).toHaveLength(2)
      expect(crop.statusHistory.filter((e: { end: string }) => e.end === '')).toHaveLength(1)
    })
  })

  describe('timeline', () => {
    it('logs an entry with date now and the caller as author by default', async () => {
      const id = await newCrop(grower)
      const res = await grower('POST', `/api/crops/${id}/timeline`, { type: 'WATERING', data: { amount: 1.5, unit: 'L', pH: 6.3, EC: 1.2 }, notes: 'Riego' })
      expect(res.status).toBe(201)
      expect(res.body.entry).toEqual({
        type: 'WATERING',
        date: expect.any(String),
        data: { amount: 1.5, unit: 'L', pH: 6.3, EC: 1.2 },
        notes: 'Riego',
        evidences: [],
        author: { id: 'test-grower', name: 'Test grower', email: 'grower@test.example' },
      })
      expect(near(res.body.entry.date)).toBe(true)
      expect(res.body.crop).toEqual({ id, timeline: [res.body.entry] })
    })

    it('keeps entries in date order; a backdated entry goes in its place', async () => {
      const id = await newCrop(grower)
      await grower('POST', `/api/crops/${id}/timeline`, { type: 'OBSERVATION', notes: 'now' })
      await grower('POST', `/api/crops/${id}/timeline`, { type: 'PRUNING', date: '2024-01-10T08:00:00Z', data: { technique: 'topping' } })
      const res = await grower('POST', `/api/crops/${id}/timeline`, {
        type: 'FERTILIZATION',
        date: '2024-01-05',
        data: [{ name: 'BioGrow', nutrients: ['N', 'P', 'K'], amount: 2, unit: 'ml/L' }],
        evidences: ['https://cdn.example.com/p/1.jpg'],
        author: { id: 'u2', name: 'Lucía', email: 'lucia@example.com' },
      })
      expect(res.body.crop.timeline.map((e: { type: string }) => e.type)).toEqual(['FERTILIZATION', 'PRUNING', 'OBSERVATION'])
      expect(res.body.entry).toMatchObject({ date: '2024-01-05T00:00:00.000Z', evidences: ['https://cdn.example.com/p/1.jpg'], author: { name: 'Lucía' } })
    })

    it('accepts all ten interaction types', async () => {
      const id = await newCrop(grower)
      const data: Record<string, unknown> = { WATERING: { amount: 1, unit: 'L' }, FERTILIZATION: [{ name: 'A', nutrients: [], amount: 1, unit: 'ml' }] }
      for (const type of [
        'PLANTING', 'WATERING', 'FERTILIZATION', 'TRANSPLANT', 'PRUNING', 'TRAINING', 'LIGHT_SCHEDULE', 'HEALTH', 'OBSERVATION', 'HARVESTING'
      ]) {
        const res = await grower('POST', `/api/crops/${id}/timeline`, { type, ...(data[type] ? { data: data[type] } : {}) })
        expect(res.status, type).toBe(201)
      }
      expect((await grower('GET', `/api/crops/${id}`)).body.crop.timeline).toHaveLength(10)
    })

    it('refuses bad entries with 400 keyed by field', async () => {
      const id = await newCrop(grower)
      const cases: Array<[unknown, string]> = [
        [{}, 'type'],
        [{ type: 'DANCING' }, 'type'],
        [{ type: 'WATERING' }, 'data'],
        [{ type: 'WATERING', data: { amount: -1, unit: 'L' } }, 'data.amount'],
        [{ type: 'WATERING', data: { amount: 1, unit: 'L', pH: 15 } }, 'data.pH'],
        [{ type: 'WATERING', data: { amount: 1, unit: 'L', EC: -1 } }, 'data.EC'],
        [{ type: 'WATERING', data: { amount: 1 } }, 'data.unit'],
        [{ type: 'FERTILIZATION', data: { name: 'x', nutrients: [], amount: 1, unit: 'ml' } }, 'data'],
        [{ type: 'FERTILIZATION', data: [] }, 'data'],
        [{ type: 'FERTILIZATION', data: [{ name: 'x', nutrients: 'N', amount: 1, unit: 'ml' }] }, 'data.0.nutrients'],
        [{ type: 'TRAINING', data: [1, 2] }, 'data'],
        [{ type: 'OBSERVATION', date: 'yesterday' }, 'date'],
        [{ type: 'OBSERVATION', date: '2024-02-30' }, 'date'],
        [{ type: 'OBSERVATION', date: new Date(Date.now() + 3 * 86_400_000).toISOString() }, 'date'],
        [{ type: 'OBSERVATION', evidences: ['not a url'] }, 'evidences.0'],
        [{ type: 'OBSERVATION', evidences: ['javascript:alert(1)'] }, 'evidences.0'],
        [{ type: 'OBSERVATION', notes: 'x'.repeat(2001) }, 'notes'],
        [{ type: 'OBSERVATION', author: { id: 'x' } }, 'author.name'],
        [{ type: 'OBSERVATION', author: { id: 'x', name: 'y', email: 'nope' } }, 'author.email'],
      ]
      for (const [body, field] of cases) {
        const res = await grower('POST', `/api/crops/${id}/timeline`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.error.code).toBe('VALIDATION_ERROR')
        expect(res.body.error.details.errors, JSON.stringify(body)).toHaveProperty([field])
      }
      expect((await grower('GET', `/api/crops/${id}`)).body.crop.timeline).toEqual([])
    })
  })

  describe('plants', () => {
    it('adds plants with padded codes continuing after the highest, or from startCode', async () => {
      const id = await newCrop(grower)
      const first = await grower('POST', `/api/crops/${id}/plants`, { count: 3 })
      expect(first.status).toBe(201)
      expect(first.body.count).toBe(3)
      expect(first.body.plants.map((p: { code: string }) => p.code)).toEqual(['P-001', 'P-002', 'P-003'])
      expect(first.body.plants[0]).toEqual({ id: expect.stringMatching(/^plant_/), code: 'P-001', status: 'ACTIVE', cropId: id })
      const second = await grower('POST', `/api/crops/${id}/plants`, { count: 2 })
      expect(second.body.plants.map((p: { code: string }) => p.code)).toEqual(['P-004', 'P-005'])
      const custom = await grower('POST', `/api/crops/${id}/plants`, { count: 2, prefix: 'MOM-', startCode: 9, status: 'MOTHER' })
      expect(custom.body.plants.map((p: { code: string, status: string }) => [p.code, p.status])).toEqual([['MOM-009', 'MOTHER'], ['MOM-010', 'MOTHER']])
      const all = (await grower('GET', `/api/crops/${id}/plants`)).body
      expect(all.count).toBe(7)
      expect((await grower('GET', `/api/crops/${id}`)).body.crop.plants).toEqual(all.plants.map((p: { id: string }) => p.id))
    })

    it('adding plants changes the crop: its updatedAt moves', async () => {
      const id = await newCrop(grower)
      const before = (await grower('GET', `/api/crops/${id}`)).body.crop.updatedAt
      await new Promise((resolve) => setTimeout(resolve, 5))
      expect((await grower('POST', `/api/crops/${id}/plants`, { count: 2 })).status).toBe(201)
      const after = (await grower('GET', `/api/crops/${id}`)).body.crop
      expect(after.plants).toHaveLength(2)
      expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before))
      expect(near(after.updatedAt)).toBe(true)
    })

    it('a startCode that reuses a code is 409 DUPLICATE_RESOURCE and adds nothing', async () => {
      const id = await newCrop(grower)
      await grower('POST', `/api/crops/${id}/plants`, { count: 5 })
      const res = await grower('POST', `/api/crops/${id}/plants`, { count: 3, startCode: 4 })
      expect(res.status).toBe(409)
      expect(res.body.error).toMatchObject({ code: 'DUPLICATE_RESOURCE', details: { codes: ['P-004', 'P-005'] } })
      expect((await grower('GET', `/api/crops/${id}/plants`)).body.count).toBe(5)
    })

    it('concurrent additions never repeat a code', async () => {
      const id = await newCrop(grower)
      const results = await Promise.all(Array.from({ length: 4 }, () => grower('POST', `/api/crops/${id}/plants`, { count: 25 })))
      expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201])
      const codes = (await grower('GET', `/api/crops/${id}/plants`)).body.plants.map((p: { code: string }) => p.code)
      expect(codes).toHaveLength(100)
      expect(new Set(codes).size).toBe(100)
    })

    it('a frozen crop takes no plants (409 CONFLICT)', async () => {
      const id = await newCrop(grower, { status: 'DRYING' })
      const res = await grower('POST', `/api/crops/${id}/plants`, { count: 1 })
      expect(res.status).toBe(409)
      expect(res.body.error.code).toBe('CONFLICT')
      expect(res.body.error.message).toContain('DRYING')
    })

    it('refuses bad counts, prefixes, statuses and start codes', async () => {
      const id = await newCrop(grower)
      const cases: Array<[unknown, string]> = [
        [{}, 'count'], [{ count: 0 }, 'count'], [{ count: -3 }, 'count'], [{ count: 1.5 }, 'count'], [{ count: 501 }, 'count'], [{ count: '3' }, 'count'],
        [{ count: 1, prefix: 'has space' }, 'prefix'], [{ count: 1, prefix: 'x'.repeat(21) }, 'prefix'],
        [{ count: 1, status: 'active' }, 'status'], [{ count: 1, startCode: -1 }, 'startCode'], [{ count: 1, startCode: 2.5 }, 'startCode'],
      ]
      for (const [body, field] of cases) {
        const res = await grower('POST', `/api/crops/${id}/plants`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.error.details.errors).toHaveProperty([field])
      }
      expect((await grower('POST', '/api/crops/crop_missing/plants', { count: 1 })).status).toBe(404)
      expect((await grower('GET', '/api/crops/crop_missing/plants')).status).toBe(404)
    })
  })

  describe('harvests', () => {
    it('in FLOWERING: the crop moves to DRYING, the harvest gets a batch number, the timeline an entry', async () => {
      const id = await newCrop(grower, { status: 'FLOWERING', name: 'Gelato A' })
      const res = await grower('POST', `/api/crops/${id}/harvest`, { wetWeight: 1250.5, quality: 'A', notes: 'Buen olor', storageLocation: 'Secadero 1' })
      expect(res.status).toBe(201)
      expect(res.body.harvest).toMatchObject({
        id: expect.stringMatching(/^harvest_/),
        name: 'Gelato A #1',
        status: 'DRYING',
        wetWeight: 1250.5,
        dryWeight: null,
        moisture: null,
        quality: 'A',
        storageLocation: 'Secadero 1',
        batchNumber: expect.stringMatching(/^B-\d{8}-\d{4}$/),
      })
      expect(res.body.crop).toEqual({ id, status: 'DRYING' })
      expect(res.body.message).toContain('DRYING')
      const crop = (await grower('GET', `/api/crops/${id}`)).body.crop
      expect(crop.statusHistory.map((e: { status: string }) => e.status)).toEqual(['FLOWERING', 'DRYING'])
      expect(crop.timeline).toEqual([
        expect.objectContaining({ type: 'HARVESTING', data: { harvestId: res.body.harvest.id, batchNumber: res.body.harvest.batchNumber, wetWeight: 1250.5 } })
      ])
      const again = await grower('POST', `/api/crops/${id}/harvest`, { wetWeight: 10 })
      expect(again.status).toBe(409)
      expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { currentStatus: 'DRYING' } })
    })

    it('continueFlowering keeps FLOWERING, and brings HARVESTING back to FLOWERING', async () => {
      const id = await newCrop(grower, { status: 'FLOWERING' })
      const first = await grower('POST', `/api/crops/${id}/harvest`, { wetWeight: 100, continueFlowering: true, name: 'Cogollos altos' })
      expect(first.body.crop.status).toBe('FLOWERING')
      expect(first.body.harvest.name).toBe('Cogollos altos')
      expect((await grower('GET', `/api/crops/${id}/status`)).body.statusHistory).toHaveLength(1)
      await moveTo(grower, id, 'HARVESTING')
      const second = await grower('POST', `/api/crops/${id}/harvest`, { wetWeight: 200, continueFlowering: true })
      expect(second.body.crop.status).toBe('FLOWERING')
      const list = (await grower('GET', `/api/crops/${id}/harvest`)).body
      expect(list.count).toBe(2)
      expect(list.crop).toMatchObject({ id, status: 'FLOWERING' })
      expect(list.harvests.map((h: { wetWeight: number }) => h.wetWeight)).toEqual([100, 200])
      expect(list.harvests[0].batchNumber).not.toBe(list.harvests[1].batchNumber)
    })

    it('only FLOWERING and HARVESTING take a harvest', async () => {
      for (const status of allStatuses.filter((s) => s !== 'FLOWERING' && s !== 'HARVESTING')) {
        const id = await newCrop(admin, { status })
        const res = await admin('POST', `/api/crops/${id}/harvest`, { wetWeight: 1 })
        expect(res.status, status).toBe(409)
        expect(res.body.error.message).toContain(status)
      }
    })

    it('batch numbers never repeat within the club, even concurrently', async () => {
      const ids = await Promise.all(Array.from({ length: 6 }, () => newCrop(grower, { status: 'FLOWERING' })))
      const results = await Promise.all(ids.map((id) => grower('POST', `/api/crops/${id}/harvest`, { wetWeight: 50, continueFlowering: true })))
      const batches = results.map((r) => r.body.harvest.batchNumber)
      expect(new Set(batches).size).toBe(6)
    })

    it('PATCH records dry weight, moisture, quality and status; the complete view sums dry weights', async () => {
      const id = await newCrop(grower, { status: 'FLOWERING', spaces: ['space_norte_flora'], plantedAt: new Date(Date.now() - 10 * 86_400_000).toISOString() })
      await grower('POST', `/api/crops/${id}/timeline`, { type: 'WATERING', data: { amount: 1, unit: 'L' } })
      await grower('POST', `/api/crops/${id}/timeline`, { type: 'WATERING', data: { amount: 1, unit: 'L' } })
      await grower('POST', `/api/crops/${id}/timeline`, { type: 'FERTILIZATION', data: [{ name: 'A', nutrients: ['N'], amount: 1, unit: 'ml' }] })
      const h1 = (await grower('POST', `/api/crops/${id}/harvest`, { wetWeight: 1000, continueFlowering: true })).body.harvest
      const h2 = (await grower('POST', `/api/crops/${id}/harvest`, { wetWeight: 500 })).body.harvest
      const patched = await grower('PATCH', `/api/crops/${id}/harvest/${h1.id}`, { dryWeight: 240.1, moisture: 11.5, status: 'CURING', quality: 'B' })
      expect(patched.status).toBe(200)
      expect(patched.body.harvest).toMatchObject({ id: h1.id, dryWeight: 240.1, moisture: 11.5, status: 'CURING', quality: 'B', wetWeight: 1000 })
      await grower('PATCH', `/api/crops/${id}/harvest/${h2.id}`, { dryWeight: 120.2 })
      expect((await grower('PATCH', `/api/crops/${id}/harvest/${h2.id}`, { status: 'STOCKED' })).body.harvest.status).toBe('STOCKED')
      const complete = (await grower('GET', `/api/crops/${id}/complete`)).body
      expect(complete.strain).toEqual({ id: 'strain_norte_gelato', name: 'Gelato', type: 'HYBRID', cannabinoids: { thc: 22, cbd: 0.1 } })
      expect(complete.crop.spaces).toEqual([{ id: 'space_norte_flora', name: 'Sala de floración', squareMeters: 12, status: 'ACTIVE' }])
      expect(complete.harvests.map((h: { id: string }) => h.id)).toEqual([h1.id, h2.id])
      expect(complete.stats).toEqual({
        daysInCurrentStatus: 0,
        totalDaysFromSeed: 10,
        totalTimelineEntries: 5,
        wateringCount: 2,
        fertilizationCount: 1,
        totalHarvests: 2,
        totalDryWeight: 360.3,
      })
    })

    it('PATCH refuses bad values, STOCKED without dry weight, unknown harvests', async () => {
      const id = await newCrop(grower, { status: 'FLOWERING' })
      const h = (await grower('POST', `/api/crops/${id}/harvest`, { wetWeight: 100 })).body.harvest
      const url = `/api/crops/${id}/harvest/${h.id}`
      const cases: Array<[unknown, string]> = [
        [{ dryWeight: 0 }, 'dryWeight'], [{ dryWeight: 101 }, 'dryWeight'], [{ moisture: 101 }, 'moisture'], [{ moisture: -1 }, 'moisture'],
        [{ status: 'SOLD' }, 'status'], [{ quality: 'D' }, 'quality'], [{}, '_'],
      ]
      for (const [body, field] of cases) {
        const res = await grower('PATCH', url, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.error.details.errors).toHaveProperty([field])
      }
      const stocked = await grower('PATCH', url, { status: 'STOCKED' })
      expect(stocked.status).toBe(409)
      expect(stocked.body.error.message).toMatch(/dryWeight/)
      expect((await grower('PATCH', `/api/crops/${id}/harvest/harvest_missing`, { moisture: 10 })).status).toBe(404)
      expect((await grower('PATCH', `/api/crops/crop_missing/harvest/${h.id}`, { moisture: 10 })).status).toBe(404)
      expect((await grower('GET', `/api/crops/${id}/harvest`)).body.harvests[0]).toMatchObject({ dryWeight: null, status: 'DRYING' })
    })

    it('refuses bad harvest bodies', async () => {
      const id = await newCrop(grower, { status: 'FLOWERING' })
      const cases: Array<[unknown, string]> = [
        [{}, 'wetWeight'], [{ wetWeight: 0 }, 'wetWeight'], [{ wetWeight: -5 }, 'wetWeight'], [{ wetWeight: '5' }, 'wetWeight'],
        [{ wetWeight: 5, quality: 'Z' }, 'quality'], [{ wetWeight: 5, continueFlowering: 'yes' }, 'continueFlowering'], [{ wetWeight: 5, name: '' }, 'name'],
      ]
      for (const [body, field] of cases) {
        const res = await grower('POST', `/api/crops/${id}/harvest`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.error.details.errors).toHaveProperty([field])
      }
      expect((await grower('GET', `/api/crops/${id}/status`)).body.currentStatus).toBe('FLOWERING')
    })
  })

  describe('plan limit', () => {
    const tiny = async (id: string, maxActiveCrops: number) => {
      await t.app.tenants.put({ id, name: id, locale: 'es', currency: 'ARS', plan: { maxActiveCrops } })
      return await as(t, 'admin', id)
    }

    it('one active crop over the plan is 403 LIMIT_EXCEEDED; a finished one frees a place', async () => {
      const call = await tiny(`club-tiny-${store}`, 2)
      await call('POST', '/api/strains', { id: 'strain_t', name: 'T', type: 'HYBRID' })
      const a = await newCrop(call, { strain: 'strain_t', status: 'CURING' })
      await newCrop(call, { strain: 'strain_t' })
      const over = await call('POST', '/api/crops', { name: 'Third', strain: 'strain_t' })
      expect(over.status).toBe(403)
      expect(over.body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { current: 2, limit: 2 } })
      await newCrop(call, { strain: 'strain_t', status: 'FINISHED' })
      await moveTo(call, a, 'FINISHED')
      await newCrop(call, { strain: 'strain_t' })
      expect((await call('GET', '/api/crops')).body.count).toBe(4)
    })

    it('concurrent creates never pass the limit', async () => {
      const call = await tiny(`club-race-${store}`, 3)
      await call('POST', '/api/strains', { id: 'strain_r', name: 'R', type: 'HYBRID' })
      const results = await Promise.all(Array.from({ length: 12 }, () => call('POST', '/api/crops', { name: 'Race', strain: 'strain_r' })))
      expect(results.filter((r) => r.status === 201)).toHaveLength(3)
      expect(results.filter((r) => r.status === 403)).toHaveLength(9)
      expect((await call('GET', '/api/crops')).body.count).toBe(3)
    })

    it('deleting an active crop frees its place', async () => {
      const call = await tiny(`club-del-${store}`, 1)
      await call('POST', '/api/strains', { id: 'strain_d', name: 'D', type: 'HYBRID' })
      const a = await newCrop(call, { strain: 'strain_d' })
      expect((await call('POST', '/api/crops', { name: 'x', strain: 'strain_d' })).status).toBe(403)
      await call('DELETE', `/api/crops/${a}`)
      expect((await call('POST', '/api/crops', { name: 'x', strain: 'strain_d' })).status).toBe(201)
    })
  })

  describe('catalog', () => {
    it('lists the demo catalog and adds strains, spaces and lights', async () => {
      const call = await as(t, 'admin', 'club-sur')
      const spaces = (await call('GET', '/api/spaces')).body
      expect(spaces.spaces.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(['space_sur_indoor', 'space_sur_patio']))
      expect((await call('GET', '/api/lights')).body.lights).toContainEqual({ id: 'light_sur_led_1', name: 'LED 320 W', type: 'LED' })
      const strain = await call('POST', '/api/strains', { name: 'Zkittlez', type: 'INDICA', cannabinoids: { thc: 19, cbd: 0.1 } })
      expect(strain.status).toBe(201)
      expect(strain.body.strain).toEqual({ id: expect.stringMatching(/^strain_/), name: 'Zkittlez', type: 'INDICA', cannabinoids: { thc: 19, cbd: 0.1 } })
      const space = await call('POST', '/api/spaces', { id: 'space_sur_carpa', name: 'Carpa', squareMeters: 1.44 })
      expect(space.body.space).toEqual({ id: 'space_sur_carpa', name: 'Carpa', squareMeters: 1.44, status: 'ACTIVE' })
      const light = await call('POST', '/api/lights', { name: 'CMH 315', type: 'CMH' })
      expect(light.body.light).toMatchObject({ name: 'CMH 315', type: 'CMH' })
      expect((await call('GET', '/api/spaces')).body.count).toBe(spaces.count + 1)
      // The new entries are usable by crops right away.
      await newCrop(call, { strain: strain.body.strain.id, spaces: ['space_sur_carpa'], lights: [light.body.light.id] })
      // ...and invisible to the other club.
      expect((await grower('GET', '/api/spaces')).body.spaces.map((s: { id: string }) => s.id)).not.toContain('space_sur_carpa')
    })

    it('a taken id is 409 DUPLICATE_RESOURCE; bad bodies are 400', async () => {
      const dup = await grower('POST', '/api/strains', { id: 'strain_norte_gelato', name: 'Again', type: 'HYBRID' })
      expect(dup.status).toBe(409)
      expect(dup.body.error.code).toBe('DUPLICATE_RESOURCE')
      const cases: Array<[string, unknown, string]> = [
        ['/api/strains', { type: 'HYBRID' }, 'name'],
        ['/api/strains', { name: 'x', type: 'hybrid' }, 'type'],
        ['/api/strains', { name: 'x', type: 'HYBRID', cannabinoids: { thc: 101, cbd: 0 } }, 'cannabinoids.thc'],
        ['/api/strains', { id: 'bad id', name: 'x', type: 'HYBRID' }, 'id'],
        ['/api/spaces', { name: 'x' }, 'squareMeters'],
        ['/api/spaces', { name: 'x', squareMeters: -1 }, 'squareMeters'],
        ['/api/lights', { name: 'x' }, 'type'],
      ]
      for (const [url, body, field] of cases) {
        const res = await grower('POST', url, body)
        expect(res.status, `${url} ${JSON.stringify(body)}`).toBe(400)
        expect(res.body.error.details.errors).toHaveProperty([field])
      }
    })
  })
})
