import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { newPhone, outbox, say, textOf } from '../chat/support.ts'

// Issue 25, item 4: a link code an admin makes for a member answered the member's token to whoever held it
// (GET /api/chat/link/{code}) and linked the member's account to any phone that sent it. Now it links only the
// member's phone on record, and no route answers it.

describe('a staff-made link code links only the member\'s phone on record, and answers no token', () => {
  let t: TestApp
  let admin: Record<string, string>
  let memberId: string
  const memberPhone = newPhone()
  const makeCode = async (): Promise<{ code: string, text: string, phone: string }> => {
    const res = await t.app.inject({ method: 'POST', url: `/api/members/${memberId}/chat-link`, headers: admin })
    expect(res.statusCode, res.body).toBe(201)
    return res.json()
  }

  beforeAll(async () => {
    t = await buildTestApp()
    admin = await t.auth('admin', 'club-norte')
    // the record's phone written the way people write it: spaces and dashes
    const written = `+${memberPhone.slice(0, 2)} ${memberPhone.slice(2, 6)} ${memberPhone.slice(6)}`
    const res = await t.app.inject({
      method: 'POST', url: '/api/members', headers: admin, payload: { email: 'lia@example.com', firstName: 'Lía', lastName: 'Mora', phone: written }
    })
    expect(res.statusCode, res.body).toBe(201)
    memberId = res.json().member.id
  })
  afterAll(async () => { await t.close() })

  it('the link route answers 404 for it (no member token to its maker), and the code still works for the member', async () => {
    const { code } = await makeCode()
    const asked = await t.app.inject({ url: `/api/chat/link/${code}` })
    expect(asked.statusCode).toBe(404)
    expect(asked.body).not.toMatch(/token|eyJ/)
    await say(t, memberPhone, { text: `LINK-${code}` })
    expect((await t.app.linkedAccounts.list(memberPhone)).map((a) => a.customerId)).toEqual([memberId])
  })

  it('sent from any other phone, it links nothing and is not spent; then the member\'s phone links with it', async () => {
    const { code, text } = await makeCode()
    // strangers, the code in capitals, and the member's number with its last digit changed
    const nearly = `${memberPhone.slice(0, -1)}${(Number(memberPhone.at(-1)) + 1) % 10}`
    for (const [phone, sent] of [[newPhone(), text], [newPhone(), `LINK-${code.toUpperCase()}`], [nearly, text]] as const) {
      await say(t, phone, { text: sent })
      expect(await t.app.linkedAccounts.list(phone)).toEqual([])
      expect((await outbox(t, phone)).map((m) => textOf(m.body)).join('\n')).not.toContain('Lía')
    }
    await t.app.linkedAccounts.remove(memberPhone, 'club-norte')
    await say(t, memberPhone, { text })
    expect((await t.app.linkedAccounts.list(memberPhone)).map((a) => a.customerId)).toEqual([memberId])
  })

  it('a code a member makes after a web login still works from any phone (their own token made it)', async () => {
    const login = await t.app.inject({
      method: 'POST', url: '/auth/customer/emailpass', headers: { 'tenant-id': 'club-norte' }, payload: { email: 'ana@example.com', password: 'demo-password' }
    })
    const token = login.json().token as string
    const made = await t.app.inject({
      method: 'POST', url: '/api/chat/link', payload: { customerId: 'cus_ana', tenantId: 'club-norte', email: 'ana@example.com', name: 'Ana', token }
    })
    expect(made.statusCode).toBe(201)
    const phone = newPhone()
    await say(t, phone, { text: `LINK-${made.json().code as string}` })
    expect((await t.app.linkedAccounts.list(phone)).map((a) => a.customerId)).toEqual(['cus_ana'])
  })
})
