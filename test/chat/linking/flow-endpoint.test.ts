import { randomInt } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { verifyAccessToken } from '../../../src/auth/tokens.ts'
import type { ChatBot } from '../../../src/chat/linking/types.ts'
import { signWebhookBody } from '../../../src/chat/signature.ts'
import { LOGIN_ATTEMPT_LIMIT } from '../../../src/chat/linking/login-attempts.ts'
import { LINKED_ACCOUNT_TTL_MS } from '../../../src/chat/linking/linked-account-store.ts'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../../helper.ts'

const DAY = 24 * 60 * 60 * 1000
const newPhone = (): string => `549${randomInt(1e9, 1e10 - 1)}`

/** Phones the bot was told about; through the real bot when it is there, else through a recorder in its place. */
function observeLinks (t: TestApp): string[] {
  const linked: string[] = []
  if (t.app.hasDecorator('chatBot')) {
    const real = t.app.chatBot.accountLinked.bind(t.app.chatBot)
    vi.spyOn(t.app.chatBot, 'accountLinked').mockImplementation(async (phone) => { linked.push(phone); await real(phone) })
  } else {
    const recorder: ChatBot = { accountLinked: async (phone) => { linked.push(phone) } }
    t.app.decorate('chatBot', recorder)
  }
  return linked
}

describe.each(['redis', 'memory'] as const)('login form data endpoint (%s)', (store) => {
  let t: TestApp
  let linked: string[]
  beforeAll(async () => {
    t = await buildTestApp({ store, ready: false })
    linked = observeLinks(t)
    await t.app.ready()
  })
  afterAll(async () => { await t.close() })

  const invitedPhone = async (): Promise<string> => {
    const phone = newPhone()
    await t.app.loginFormInvites.markSent(phone)
    return phone
  }
  const exchange = (phone: string, screen: string, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    source: 'chat', data_exchange: { version: '3.0', screen, flow_token: phone, data, ...extra }, signature_valid: true,
  })
  // Signed as the provider signs, unless the call gives its own X-Webhook-Signature.
  const post = async (payload: unknown, headers: Record<string, string> = {}) => {
    const raw = typeof payload === 'string' ? payload : JSON.stringify(payload)
    const signature = signWebhookBody(TEST_SECRETS.CHAT_WEBHOOK_SECRET, raw)
    return await t.app.inject({
      method: 'POST',
      url: '/api/chat/flow-endpoint',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signature, ...headers },
      payload: raw
    })
  }
  const login = async (phone: string, email: string, password: string, club = 'club-norte') =>
    await post(exchange(phone, 'LOGIN', { club_id: club, email, password }))

  describe('health check', () => {
    it('answers a ping, top level or inside data_exchange, without a flow token', async () => {
      for (const ping of [
        { action: 'ping' }, { version: '3.0', action: 'PING' }, { source: 'chat', data_exchange: { action: 'ping' }, signature_valid: true }
      ]) {
        const res = await post(ping)
        expect(res.statusCode).toBe(200)
        expect(res.json()).toEqual({ data: { status: 'active' } })
      }
    })

    it('refuses a ping the provider marked unsigned', async () => {
      expect((await post({ action: 'ping', signature_valid: false })).statusCode).toBe(401)
    })
  })

  describe('who may answer', () => {
    it('signature_valid false is 401 in the envelope', async () => {
      const res = await post({ ...exchange(await invitedPhone(), 'CLUB_SELECT', { club_id: 'club-norte' }), signature_valid: false })
      expect(res.statusCode).toBe(401)
      expect(res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'The payload signature was not valid (signature_valid is false)' } })
    })

    it('checks X-Webhook-Signature over the raw bytes on every call', async () => {
      const raw = JSON.stringify(exchange(await invitedPhone(), 'CLUB_SELECT', { club_id: 'club-norte' }))
      const good = await post(raw, { 'x-webhook-signature': signWebhookBody(TEST_SECRETS.CHAT_WEBHOOK_SECRET, raw) })
      expect(good.statusCode).toBe(200)
      expect((await post(raw, { 'x-webhook-signature': `sha256=${signWebhookBody(TEST_SECRETS.CHAT_WEBHOOK_SECRET, raw).toUpperCase()}` })).statusCode).toBe(
        200
      )
      // the same JSON with other spacing is other bytes
      const respaced = await post(JSON.stringify(JSON.parse(raw), null, 1), { 'x-webhook-signature': signWebhookBody(TEST_SECRETS.CHAT_WEBHOOK_SECRET, raw) })
      expect(respaced.statusCode).toBe(401)
      for (const header of ['nothex', '00'.repeat(32), signWebhookBody('another-secret-0123456789abcdef', raw)]) {
        const res = await post(raw, { 'x-webhook-signature': header })
        expect(res.statusCode).toBe(401)
        expect(res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid or missing webhook signature' } })
      }
      // before the body is validated: a bad signature on a bad body is still 401
      expect((await post('{"nonsense":true}', { 'x-webhook-signature': 'ab' })).statusCode).toBe(401)
    })

    it('a phone the form was never sent to is 403', async () => {
      const res = await post(exchange(newPhone(), 'CLUB_SELECT', { club_id: 'club-norte' }))
      expect(res.statusCode).toBe(403)
      expect(res.json().error).toEqual({ code: 'FORBIDDEN', message: 'No login form was sent to this phone in the last hour: ask the bot for a new one' })
    })

    it('a leading + on the flow token is the same phone', async () => {
      const phone = await invitedPhone()
      expect((await post(exchange(`+${phone}`, 'CLUB_SELECT', { club_id: 'club-norte' }))).statusCode).toBe(200)
    })
  })

  describe('bad requests', () => {
    it('missing parts are 400 VALIDATION_ERROR keyed by field', async () => {
      const res = await post({ data_exchange: { screen: 'LOGIN' } })
      expect(res.statusCode).toBe(400)
      expect(res.json().error.code).toBe('VALIDATION_ERROR')
      expect(res.json().error.details.errors).toEqual({ source: ['Required'], signature_valid: ['Required'], 'data_exchange.flow_token': ['Required'] })
      expect((await post({ source: 'chat', signature_valid: true })).json().error.details.errors).toEqual({ data_exchange: ['Required'] })
    })

    it('an unknown screen or action is a clear 400', async () => {
      const phone = await invitedPhone()
      const screen = await post(exchange(phone, 'PAYMENT'))
      expect(screen.statusCode).toBe(400)
      expect(screen.json().error.details.errors).toEqual({ 'data_exchange.screen': ['Unknown screen PAYMENT: expected CLUB_SELECT or LOGIN'] })
      const action = await post(exchange(phone, 'LOGIN', {}, { action: 'explode' }))
      expect(action.statusCode).toBe(400)
      expect(action.json().error.details.errors['data_exchange.action'][0]).toMatch(/^Unknown action explode/)
    })

    it('a flow token that is not a phone, or fields of the wrong type, are 400', async () => {
      expect((await post(exchange('not-a-phone', 'LOGIN'))).json().error.details.errors).toEqual({
        'data_exchange.flow_token': ['Must be the phone number in E.164 digits or a business-scoped user id']
      })
      const wrong = await post({ source: 1, data_exchange: { screen: 'LOGIN', flow_token: '5491100000000', data: [] }, signature_valid: 'yes' })
      expect(wrong.statusCode).toBe(400)
      expect(Object.keys(wrong.json().error.details.errors).sort()).toEqual(['data_exchange.data', 'signature_valid', 'source'])
    })
  })

  describe('screens', () => {
    it('INIT and BACK show the club list', async () => {
      const phone = await invitedPhone()
      for (const action of ['INIT', 'BACK']) {
        const res = await post(exchange(phone, 'LOGIN', {}, { action }))
        expect(res.statusCode).toBe(200)
        expect(res.json()).toMatchObject({
          version: '3.0',
          screen: 'CLUB_SELECT',
          data: { clubs: [{ id: 'club-norte', title: 'Club Norte' }, { id: 'club-sur', title: 'Club Sur' }], error_message: ' ', has_error: false },
        })
      }
    })

    it('CLUB_SELECT goes on to LOGIN with the club name; an unknown club shows the list again', async () => {
      const phone = await invitedPhone()
      expect((await post(exchange(phone, 'CLUB_SELECT', { club_id: 'club-sur' }))).json()).toMatchObject({
        version: '3.0', screen: 'LOGIN', data: { club_id: 'club-sur', club_name: 'Club Sur', error_message: ' ', has_error: false },
      })
      const unknown = (await post(exchange(phone, 'CLUB_SELECT', { club_id: 'club-x' }))).json()
      expect(unknown.screen).toBe('CLUB_SELECT')
      expect(unknown.data).toMatchObject({ has_error: true, error_message: 'Elegí un club de la lista' })
    })

    it('COMPLETE is SUCCESS without further work', async () => {
      const phone = await invitedPhone()
      const res = await post(exchange(phone, 'SUCCESS', { member_name: 'Ana', club_name: 'Club Norte' }, { action: 'COMPLETE' }))
      expect(res.json()).toMatchObject({ version: '3.0', screen: 'SUCCESS', data: { member_name: 'Ana', club_name: 'Club Norte' } })
      expect(await t.app.linkedAccounts.list(phone)).toEqual([])
    })

    it('LOGIN with the right password links the account for 7 days and tells the bot', async () => {
      const phone = await invitedPhone()
      const before = Date.now()
      const res = await login(phone, 'ana@example.com', 'demo-password')
      expect(res.statusCode).toBe(200)
      expect(res.json()).toMatchObject({ version: '3.0', screen: 'SUCCESS', data: { member_name: 'Ana Pereyra', club_name: 'Club Norte' } })
      expect(res.body).not.toContain('eyJ')
      const [account, ...others] = await t.app.linkedAccounts.list(phone)
      expect(others).toEqual([])
      expect(account).toMatchObject({ tenantId: 'club-norte', tenantName: 'Club Norte', email: 'ana@example.com', name: 'Ana Pereyra', role: 'member' })
      expect(account?.linkedAt).toBeGreaterThanOrEqual(before)
      expect(account?.expiresAt).toBe((account?.linkedAt ?? 0) + LINKED_ACCOUNT_TTL_MS)
      expect(LINKED_ACCOUNT_TTL_MS).toBe(7 * DAY)
      const principal = await verifyAccessToken(t.config.jwtSecret, account?.token ?? '')
      expect(principal.sub).toBe(account?.customerId)
      expect(principal.tenants).toEqual(['club-norte'])
      // the kept token lives as long as the link, not the day of the login's own token
      expect(Math.abs(principal.exp * 1000 - (account?.expiresAt ?? 0))).toBeLessThan(5_000)
      await expect.poll(() => linked).toContain(phone)
    })

    it('LOGIN with a wrong password stays on LOGIN with the Spanish message, and links nothing', async () => {
      const phone = await invitedPhone()
      const res = await login(phone, 'ana@example.com', 'wrong-password')
      expect(res.json()).toMatchObject({
        version: '3.0',
        screen: 'LOGIN',
        data: { club_id: 'club-norte', club_name: 'Club Norte', error_message: 'Email o contraseña incorrectos', has_error: true }
      })
      expect(await t.app.linkedAccounts.list(phone)).toEqual([])
      expect(linked).not.toContain(phone)
    })

    it('LOGIN at a club the member does not belong to says so', async () => {
      const phone = await invitedPhone()
      const res = await login(phone, 'bruno@example.com', 'demo-password', 'club-sur')
      expect(res.json().data).toMatchObject({ has_error: true, error_message: 'Tu cuenta no es socia de Club Sur' })
      expect(await t.app.linkedAccounts.list(phone)).toEqual([])
    })

    it('LOGIN with blank fields or an unknown club answers at once', async () => {
      const phone = await invitedPhone()
      expect((await login(phone, '', '')).json().data).toMatchObject({ has_error: true, error_message: 'Ingresá tu email y tu contraseña' })
      expect((await login(phone, 'ana@example.com', 'x', 'club-x')).json().screen).toBe('CLUB_SELECT')
    })
  })

  describe('rate limit of logins', () => {
    it(`after ${LOGIN_ATTEMPT_LIMIT} attempts from one phone, more are refused without checking the password`, async () => {
      const phone = await invitedPhone()
      for (let i = 0; i < LOGIN_ATTEMPT_LIMIT; i++) {
        expect((await login(phone, `nobody${i}@example.com`, 'wrong')).json().data.error_message).toBe('Email o contraseña incorrectos')
      }
      const blocked = (await login(phone, 'bruno@example.com', 'demo-password')).json()
      expect(blocked.screen).toBe('LOGIN')
      expect(blocked.data.error_message).toMatch(/^Demasiados intentos\. Probá de nuevo en 1[45] min\.$/)
      expect(await t.app.linkedAccounts.list(phone)).toEqual([])
    })

    it(`after ${LOGIN_ATTEMPT_LIMIT} attempts on one email, other phones are refused too`, async () => {
      const email = `target-${newPhone()}@example.com`
      for (let i = 0; i < LOGIN_ATTEMPT_LIMIT; i++) await login(await invitedPhone(), email, 'wrong')
      expect((await login(await invitedPhone(), email.toUpperCase(), 'wrong')).json().data.error_message).toMatch(/^Demasiados intentos/)
    })

    it('a successful login clears the count', async () => {
      const phone = await invitedPhone()
      for (let i = 0; i < LOGIN_ATTEMPT_LIMIT - 1; i++) await login(phone, `nobody${i}@example.com`, 'wrong')
      expect((await login(phone, 'bruno@example.com', 'demo-password')).json().screen).toBe('SUCCESS')
      for (let i = 0; i < LOGIN_ATTEMPT_LIMIT - 1; i++) await login(phone, `nobody${i}@example.com`, 'wrong')
      expect((await login(phone, 'bruno@example.com', 'demo-password')).json().screen).toBe('SUCCESS')
    })
  })
})
