import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helper.ts'
import { as, cropsApp, type Call } from './client.ts'

// Every bad create body is a 400 VALIDATION_ERROR naming the field, never a 500, and creates nothing.
describe('POST /api/crops validation', () => {
  let t: TestApp
  let call: Call
  beforeAll(async () => {
    t = await cropsApp('memory')
    call = await as(t, 'grower')
  })
  afterAll(async () => { await t.close() })

  const ok = { name: 'Crop', strain: 'strain_norte_gelato' }
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['no name', { strain: 'strain_norte_gelato' }, 'name'],
    ['blank name', { ...ok, name: '   ' }, 'name'],
    ['long name', { ...ok, name: 'x'.repeat(121) }, 'name'],
    ['name not a string', { ...ok, name: 42 }, 'name'],
    ['no strain', { name: 'Crop' }, 'strain'],
    ['strain an object', { ...ok, strain: { id: 'strain_norte_gelato' } }, 'strain'],
    ['strain with spaces', { ...ok, strain: 'bad strain' }, 'strain'],
    ['blank strainName', { ...ok, strain: 'strain_new', strainName: '' }, 'strainName'],
    ['unknown status', { ...ok, status: 'GROWING' }, 'status'],
    ['lower-case status', { ...ok, status: 'flowering' }, 'status'],
    ['plantedAt not a date', { ...ok, plantedAt: 'last week' }, 'plantedAt'],
    ['plantedAt impossible', { ...ok, plantedAt: '2024-13-01' }, 'plantedAt'],
    ['plantedAt without offset', { ...ok, plantedAt: '2024-01-01T10:00:00' }, 'plantedAt'],
    ['expectedHarvestDate a number', { ...ok, expectedHarvestDate: 1700000000 }, 'expectedHarvestDate'],
    ['expectedYield zero', { ...ok, expectedYield: 0 }, 'expectedYield'],
    ['expectedYield negative', { ...ok, expectedYield: -10 }, 'expectedYield'],
    ['expectedYield a string', { ...ok, expectedYield: '100' }, 'expectedYield'],
    ['pot without milliliters', { ...ok, pot: { substrate: [] } }, 'pot.milliliters'],
    ['pot negative', { ...ok, pot: { milliliters: -1 } }, 'pot.milliliters'],
    ['substrate not adding up', { ...ok, pot: { milliliters: 1000, substrate: [{ type: 'COCO', percentage: 50 }] } }, 'pot.substrate'],
    ['substrate lower-case', { ...ok, pot: { milliliters: 1000, substrate: [{ type: 'coco', percentage: 100 }] } }, 'pot.substrate.0.type'],
    ['substrate percentage over 100', { ...ok, pot: { milliliters: 1000, substrate: [{ type: 'COCO', percentage: 150 }] } }, 'pot.substrate.0.percentage'],
    ['plants not an array', { ...ok, plants: 'p1' }, 'plants'],
    ['plants repeated', { ...ok, plants: ['p1', 'p1'] }, 'plants'],
    ['plants too many', { ...ok, plants: Array.from({ length: 501 }, (_, i) => `p${i}`) }, 'plants'],
    ['plant id bad', { ...ok, plants: ['ok', 'no way'] }, 'plants.1'],
    ['seed an object', { ...ok, seed: { id: 'x' } }, 'seed'],
    ['spaces repeated', { ...ok, spaces: ['space_norte_vege', 'space_norte_vege'] }, 'spaces'],
    ['lights not strings', { ...ok, lights: [1] }, 'lights.0'],
  ]

  it.each(cases)('%s', async (_label, body, field) => {
    const res = await call('POST', '/api/crops', body)
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('VALIDATION_ERROR')
    expect(res.body.error.details.errors).toHaveProperty([field])
  })

  it('reports every bad field at once', async () => {
    const res = await call('POST', '/api/crops', { status: 'NOPE', expectedYield: -1 })
    expect(Object.keys(res.body.error.details.errors).sort()).toEqual(['expectedYield', 'name', 'status', 'strain'])
  })

  it('malformed JSON and a missing body are 400, not 500', async () => {
    const headers = await t.auth('grower')
    const malformed = await t.app.inject({
      method: 'POST', url: '/api/crops', headers: { ...headers, 'content-type': 'application/json' }, payload: '{"name":'
    })
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json().error.code).toBe('INVALID_REQUEST')
    const empty = await t.app.inject({ method: 'POST', url: '/api/crops', headers })
    expect(empty.statusCode).toBe(400)
    const array = await call('POST', '/api/crops', [ok])
    expect(array.status).toBe(400)
  })

  it('created nothing along the way', async () => {
    const list = await call('GET', '/api/crops')
    expect(list.body.crops.map((c: { id: string }) => c.id)).toEqual(['crop_norte_gelato'])
  })
})
