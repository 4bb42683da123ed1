import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helper.ts'
import { as, caller, cropsApp, newCrop, type Call, type Method } from './client.ts'

// Who may call the crop and catalog routes: grower and admin of the club; a member is 403; a crop of another
// club does not exist for the caller (404). Store-independent, so on memory.

type Route = [Method, string, unknown?]

function routes (cropId: string, harvestId: string): Route[] {
  const crop = `/api/crops/${cropId}`
  return [
    ['GET', '/api/crops'],
    ['POST', '/api/crops', { name: 'X', strain: 'strain_norte_gelato' }],
    ['GET', crop],
    ['PATCH', crop, { expectedYield: 10 }],
    ['GET', `${crop}/complete`],
    ['GET', `${crop}/status`],
    ['POST', `${crop}/status`, { newStatus: 'HARVESTING' }],
    ['POST', `${crop}/timeline`, { type: 'OBSERVATION', notes: 'x' }],
    ['GET', `${crop}/plants`],
    ['POST', `${crop}/plants`, { count: 1 }],
    ['GET', `${crop}/harvest`],
    ['POST', `${crop}/harvest`, { wetWeight: 10, continueFlowering: true }],
    ['PATCH', `${crop}/harvest/${harvestId}`, { moisture: 12 }],
    ['DELETE', crop],
    ['GET', '/api/strains'],
    ['POST', '/api/strains', { name: 'S', type: 'HYBRID' }],
    ['GET', '/api/spaces'],
    ['POST', '/api/spaces', { name: 'S', squareMeters: 2 }],
    ['GET', '/api/lights'],
    ['POST', '/api/lights', { name: 'L', type: 'LED' }],
  ]
}

const cropRoute = (r: Route) => r[1].startsWith('/api/crops/')

describe('crops API access', () => {
  let t: TestApp
  let grower: Call
  let cropId: string
  let harvestId: string

  beforeAll(async () => {
    t = await cropsApp('memory')
    grower = await as(t, 'grower')
    cropId = await newCrop(grower, { status: 'FLOWERING' })
    const res = await grower('POST', `/api/crops/${cropId}/harvest`, { wetWeight: 100, continueFlowering: true })
    harvestId = res.body.harvest.id
  })
  afterAll(async () => { await t.close() })

  const expectError = (res: { status: number, body: any }, status: number, code: string) => {
    expect(res.status).toBe(status)
    expect(res.body.error.code).toBe(code)
  }

  it('a member is 403 INSUFFICIENT_PERMISSIONS on every route', async () => {
    const member = await as(t, 'member')
    for (const [method, url, body] of routes(cropId, harvestId)) expectError(await member(method, url, body), 403, 'INSUFFICIENT_PERMISSIONS')
  })

  it('no token is 401 UNAUTHORIZED, a bad one INVALID_TOKEN, an expired one TOKEN_EXPIRED', async () => {
    const anonymous = caller(t, { 'tenant-id': 'club-norte' })
    const forged = caller(t, { 'tenant-id': 'club-norte', authorization: 'Bearer abc.def.ghi' })
    const expired = caller(t, { 'tenant-id': 'club-norte', authorization: `Bearer ${await t.token('admin', ['club-norte'], { expiresIn: -60 })}` })
    for (const [method, url, body] of routes(cropId, harvestId)) {
      expectError(await anonymous(method, url, body), 401, 'UNAUTHORIZED')
      expectError(await forged(method, url, body), 401, 'INVALID_TOKEN')
      expectError(await expired(method, url, body), 401, 'TOKEN_EXPIRED')
    }
  })

  it('an unknown tenant is 404; a club the token does not belong to is 403 FORBIDDEN', async () => {
    const token = await t.token('admin', ['club-norte'])
    const unknown = caller(t, { 'tenant-id': 'club-nowhere', authorization: `Bearer ${token}` })
    const foreign = caller(t, { 'tenant-id': 'club-sur', authorization: `Bearer ${token}` })
    for (const [method, url, body] of routes(cropId, harvestId)) {
      expectError(await unknown(method, url, body), 404, 'NOT_FOUND')
      expectError(await foreign(method, url, body), 403, 'FORBIDDEN')
    }
  })

  it('without Tenant-id the token\'s only club is used', async () => {
    const res = await caller(t, { authorization: `Bearer ${await t.token('grower', ['club-norte'])}` })('GET', `/api/crops/${cropId}`)
    expect(res.status).toBe(200)
  })

  it('another club\'s crop is 404 on every crop route, and stays untouched', async () => {
    const surAdmin = await as(t, 'admin', 'club-sur')
    for (const route of routes(cropId, harvestId).filter(cropRoute)) {
      const [method, url, body] = route
      const res = await surAdmin(method, url, body)
      expect(res.status, `${method} ${url}`).toBe(404)
      expect(res.body.error.code).toBe('NOT_FOUND')
    }
    const still = await grower('GET', `/api/crops/${cropId}`)
    expect(still.status).toBe(200)
    expect(still.body.crop.expectedYield).toBeNull()
    expect((await surAdmin('GET', '/api/crops')).body.crops.map((c: { id: string }) => c.id)).not.toContain(cropId)
  })

  it.each(['grower', 'admin'] as const)('a %s may use every route', async (role) => {
    const call = await as(t, role)
    const own = await newCrop(call, { status: 'FLOWERING' })
    const harvest = await call('POST', `/api/crops/${own}/harvest`, { wetWeight: 100, continueFlowering: true })
    for (const [method, url, body] of routes(own, harvest.body.harvest.id)) {
      const res = await call(method, url, body)
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300)
    }
  })
})
