import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { redisState } from './support.ts'

// The class of review item 1: a body field must not decide what only a credential may decide. A link code is
// made for the token's own member, club and email; nothing else in the body can redirect it.

describe('body fields checked against the credential', () => {
  let t: TestApp
  let token: string
  beforeAll(async () => {
    t = await buildTestApp()
    token = await t.token('member', ['club-norte'], { sub: 'cus_ana', email: 'ana@example.com', name: 'Ana Pereyra' })
  })
  afterAll(async () => { await t.close() })

  const link = (body: Record<string, string>) => t.app.inject({
    method: 'POST', url: '/api/chat/link', payload: { customerId: 'cus_ana', tenantId: 'club-norte', email: 'ana@example.com', name: 'Ana', token, ...body },
  })

  it('another member, another club or another email in the body is refused, and no code is stored', async () => {
    const before = await redisState(t)
    const bodies: Array<Record<string, string>> = [
      { customerId: 'cus_bruno' }, { tenantId: 'club-sur' }, { email: 'bruno@example.com' }, { token: `${token}x` }
    ]
    for (const body of bodies) {
      const res = await link(body)
      expect([res.statusCode, res.json().error], JSON.stringify(body)).toEqual([401, expect.any(String)])
    }
    expect(await redisState(t)).toEqual(before)
  })

  it('the token\'s own email, in any case, is accepted', async () => {
    expect((await link({ email: 'Ana@Example.com' })).statusCode).toBe(201)
  })
})
