import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_PASSWORD } from '../../src/tenants/demo.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { newPhone, say } from '../chat/support.ts'
import { notice } from '../notifications/fixtures.ts'

// A member leaves one club and keeps their account for the others; an erasure on request removes the club's
// personal data of them (chat link, conversation, notices, standing fields) and leaves the dispensing record whole.

describe.each(['redis', 'memory'] as const)('a member leaves the club, their data erased on request (%s)', (store) => {
  let t: TestApp
  let admin: Record<string, string>
  beforeAll(async () => {
    t = await buildTestApp({ store })
    admin = await t.auth('admin', 'club-norte')
  })
  afterAll(async () => { await t.close() })

  const login = async (tenant: string) =>
    await t.app.inject({
      method: 'POST', url: '/auth/customer/emailpass', headers: { 'tenant-id': tenant }, payload: { email: 'ana@example.com', password: DEMO_PASSWORD }
    })
  const leave = async (id: string, headers = admin) => await t.app.inject({ method: 'DELETE', url: `/api/members/${id}`, headers })
  const erase = async (id: string, headers = admin) => await t.app.inject({ method: 'POST', url: `/api/members/${id}/erase`, headers })

  it('refuses unknown ids, another club\'s member and a grower with clear errors, changing nothing', async () => {
    for (const res of [await leave('cus_nobody'), await erase('cus_nobody')]) expect([res.statusCode, res.json().error.code]).toEqual([404, 'NOT_FOUND'])
    const sur = await t.auth('admin', 'club-sur')
    for (const res of [
      await leave('cus_bruno', sur), await erase('cus_bruno', sur)
    ]) expect([res.statusCode, res.json().error.code]).toEqual([404, 'NOT_FOUND'])
    const grower = await t.auth('grower', 'club-norte')
    for (const res of [await leave('cus_ana', grower), await erase('cus_ana', grower)]) {
      expect([res.statusCode, res.json().error.code]).toEqual([
        403, 'INSUFFICIENT_PERMISSIONS'
      ])
    }
    expect((await login('club-norte')).statusCode).toBe(200)
  })

  it('after leaving, the member logs in to the other club and not to this one; their chat link here is gone', async () => {
    const phone = newPhone()
    const token = await t.token('member', ['club-norte'], { sub: 'cus_ana', email: 'ana@example.com', name: 'Ana' })
    const code = await t.app.inject({
      method: 'POST', url: '/api/chat/link', payload: { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', tenantId: 'club-norte', token }
    })
    await say(t, phone, { text: `LINK-${code.json().code as string}` })
    expect(await t.app.linkedAccounts.phonesOf('club-norte', 'cus_ana')).toEqual([phone])
    await t.app.notifications.notify(notice('cus_ana'))

    const res = await leave('cus_ana')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ memberId: 'cus_ana', standing: { status: 'ended' }, chatLinksRemoved: 1 })
    expect(await t.app.linkedAccounts.phonesOf('club-norte', 'cus_ana')).toEqual([])
    const refused = await login('club-norte')
    expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'FORBIDDEN'])
    expect((await login('club-sur')).statusCode).toBe(200)
    expect((await t.app.inject({ url: '/api/members/cus_ana', headers: admin })).statusCode).toBe(404)
    const again = await leave('cus_ana')
    expect([again.statusCode, again.json().error.code]).toEqual([404, 'NOT_FOUND'])

    // The former member's data stays until erased: the conversation and the notice are still there.
    const messages = async () => await t.app.inject({ url: `/api/chat/conversations/${phone}/messages`, headers: admin })
    expect((await messages()).json().messages.length).toBeGreaterThan(0)
    const notices = async () =>
      (await t.app.notifications.list({ tenantId: 'club-norte', recipientId: 'cus_ana', role: 'member' }, { offset: 0, limit: 10 })).total
    expect(await notices()).toBe(1)

    // Re-linking the phone for the erasure: a link made before the leave would be the same data.
    const relink = await t.app.inject({
      method: 'POST', url: '/api/chat/link', payload: { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', tenantId: 'club-norte', token }
    })
    await say(t, phone, { text: `LINK-${relink.json().code as string}` })
    const erased = await erase('cus_ana')
    expect(erased.statusCode).toBe(200)
    expect(erased.json()).toMatchObject({
      memberId: 'cus_ana',
      chatLinksRemoved: 1,
      conversationsErased: 1,
      notificationsErased: 1,
      standing: { status: 'ended', birthDate: null, identityCheck: null, memberSince: null, validUntil: null, monthlyAllowanceGrams: null },
    })
    const gone = await messages()
    expect([gone.statusCode, gone.json().error.code]).toEqual([404, 'NOT_FOUND'])
    expect(await notices()).toBe(0)
    expect(await t.app.linkedAccounts.phonesOf('club-norte', 'cus_ana')).toEqual([])
    expect((await t.app.inject({ url: '/api/chat/conversations', headers: admin })).json().conversations.map((c: { phone: string }) => c.phone)).not.toContain(
      phone
    )
    expect((await t.app.inject({ url: '/api/dispensing/verify', headers: admin })).json()).toMatchObject({ ok: true })
    expect((await login('club-sur')).statusCode).toBe(200)
  }, 30_000)

  it('erases a current member\'s standing fields, keeping them a member', async () => {
    const patched = await t.app.inject({
      method: 'PATCH', url: '/api/members/cus_bruno', headers: admin, payload: { birthDate: '1990-04-02', validUntil: '2030-01-01' }
    })
    expect(patched.statusCode).toBe(200)
    const erased = await erase('cus_bruno')
    expect([erased.statusCode, erased.json().standing.birthDate, erased.json().standing.validUntil]).toEqual([200, null, null])
    expect((await t.app.inject({ url: '/api/members/cus_bruno', headers: admin })).json().standing).toMatchObject({ birthDate: null, status: 'ended' })
  })
})
