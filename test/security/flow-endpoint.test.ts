import { randomInt } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'
import { flowCall, redisState, sign } from './support.ts'

// Review item 1: the login form's data endpoint takes only calls signed by the messaging provider. An unsigned
// or badly signed call is 401 with one answer, whatever the phone, and changes nothing at all.

const UNSIGNED = { error: { code: 'UNAUTHORIZED', message: 'Invalid or missing webhook signature' } }

describe('login form endpoint: signature on every call', () => {
  let t: TestApp
  let invited: string
  const stranger = `549${randomInt(1e9, 1e10 - 1)}`
  beforeAll(async () => {
    t = await buildTestApp()
    invited = `549${randomInt(1e9, 1e10 - 1)}`
    await t.app.loginFormInvites.markSent(invited)
  })
  afterAll(async () => { await t.close() })

  const login = (phone: string, password = 'demo-password', extra: Record<string, unknown> = {}) => JSON.stringify({
    source: 'chat',
    data_exchange: { version: '3.0', screen: 'LOGIN', flow_token: phone, data: { club_id: 'club-norte', email: 'ana@example.com', password } },
    signature_valid: true,
    ...extra,
  })
  const bodies = (phone: string): string[] => [
    login(phone),
    login(phone, 'wrong-password'),
    JSON.stringify({ source: 'chat', data_exchange: { action: 'INIT', flow_token: phone }, signature_valid: true }),
    JSON.stringify({ action: 'ping' }),
    JSON.stringify({ source: 'chat', data_exchange: { action: 'ping' }, signature_valid: true }),
    '{"not":"even the right shape"}',
    'not json at all',
  ]
  // Everything an attacker without the secret can put in the header.
  const forgeries = (raw: string): Array<Record<string, string>> => [
    {},
    { 'x-webhook-signature': '' },
    { 'x-webhook-signature': 'deadbeef' },
    { 'x-webhook-signature': '0'.repeat(64) },
    { 'x-webhook-signature': sign(raw, 'a-guessed-secret-0123456789abcdef') },
    { 'x-webhook-signature': sign(`${raw} `) },
    { 'x-webhook-signature': sign(raw, TEST_SECRETS.JWT_SECRET) },
  ]

  it('refuses every unsigned or badly signed call with one 401, invited phone or not, and changes nothing', async () => {
    const before = await redisState(t)
    for (const phone of [invited, stranger]) {
      for (const raw of bodies(phone)) {
        for (const headers of forgeries(raw)) {
          const res = await t.app.inject(flowCall(raw, headers))
          expect([res.statusCode, res.json()], `${phone} ${raw} ${JSON.stringify(headers)}`).toEqual([401, UNSIGNED])
        }
      }
    }
    // no link, no attempt counted on the phone, the email or the login lock, the invite untouched
    expect(await redisState(t)).toEqual(before)
    expect(await t.app.linkedAccounts.list(invited)).toEqual([])
    expect(await t.app.loginFormInvites.wasSent(invited)).toBe(true)
  })

  it('a call without any body, or a non-JSON content type, is refused the same way', async () => {
    const empty = await t.app.inject({ method: 'POST', url: '/api/chat/flow-endpoint' })
    expect([empty.statusCode, empty.json()]).toEqual([401, UNSIGNED])
    const raw = login(invited)
    const form = await t.app.inject({
      method: 'POST', url: '/api/chat/flow-endpoint', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: raw
    })
    expect([form.statusCode, form.json()]).toEqual([401, UNSIGNED])
  })

  it('a signed call that says signature_valid: false is refused too, and changes nothing', async () => {
    const before = await redisState(t)
    for (const raw of [login(invited, 'demo-password', { signature_valid: false }), JSON.stringify({ action: 'ping', signature_valid: false })]) {
      const res = await t.app.inject(flowCall(raw, { 'x-webhook-signature': sign(raw) }))
      expect(res.statusCode).toBe(401)
      expect(res.json().error.code).toBe('UNAUTHORIZED')
    }
    expect(await redisState(t)).toEqual(before)
  })

  it('the same calls signed with the secret work: the refusals above are the signature\'s doing', async () => {
    const ping = JSON.stringify({ action: 'ping' })
    expect((await t.app.inject(flowCall(ping, { 'x-webhook-signature': sign(ping) }))).json()).toEqual({ data: { status: 'active' } })
    const raw = login(invited)
    const res = await t.app.inject(flowCall(raw, { 'x-webhook-signature': sign(raw) }))
    expect(res.json().screen).toBe('SUCCESS')
    expect(await t.app.linkedAccounts.list(invited)).toHaveLength(1)
  })
})
