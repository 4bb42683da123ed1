import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { demoLogin, placeOrder } from '../orders/place-order.ts'
import { choiceIds, linkCode, newPhone, outbox, say, textOf } from './support.ts'

// Staff link a phone by a code made with their own token (the login form is for members): they get the crops
// report. The orders API shows an admin every order of the club and anyone else their own, and the orders
// report is titled to match.

describe('a grower in the chat (memory)', () => {
  let t: TestApp
  let anasOrder: string
  beforeAll(async () => {
    t = await buildTestApp({ store: 'memory' })
    anasOrder = (await placeOrder(t, await demoLogin(t, 'customer', 'ana@example.com'))).displayId
  })
  afterAll(async () => { await t.close() })

  const replies = async (phone: string, after: number) => (await outbox(t, phone, after)).map((m) => m.body)
  const lastSeq = async (phone: string) => (await outbox(t, phone)).at(-1)?.seq ?? 0

  const linkStaff = async (role: 'grower' | 'admin', customerId: string, email: string) => {
    const phone = newPhone()
    const member = { customerId, email, name: 'Staff', tenantId: 'club-norte' }
    const token = await t.token(role, ['club-norte'], { sub: customerId, name: member.name, email })
    await say(t, phone, { text: `LINK-${await linkCode(t, { ...member, token })}` })
    return phone
  }

  it('an admin\'s orders report is the club\'s', async () => {
    const phone = await linkStaff('admin', 'user_admin_norte', 'admin@club-norte.test')
    const seen = await lastSeq(phone)
    await say(t, phone, { reply: 'menu:orders' })
    // a member's order, not the admin's own: the report is the club's
    const report = textOf((await replies(phone, seen))[0]!)
    expect(report).toMatch(/^Últimos pedidos del club:\n/)
    expect(report).toContain(`#${anasOrder} · `)
  })

  it('links by code, sees the crops, and their own orders', async () => {
    const phone = newPhone()
    const member = { customerId: 'user_grower_norte', email: 'grower@club-norte.test', name: 'Grower', tenantId: 'club-norte' }
    const token = await t.token('grower', ['club-norte'], { sub: member.customerId, name: member.name, email: member.email })
    await say(t, phone, { text: `LINK-${await linkCode(t, { ...member, token })}` })
    const menu = (await outbox(t, phone)).at(-1)!.body
    expect(choiceIds(menu)).toEqual([
      'menu:browse', 'menu:cart', 'menu:repeat', 'menu:orders', 'menu:notifications', 'menu:crops', 'menu:updates-off', 'menu:language', 'menu:unlink'
    ])

    let seen = await lastSeq(phone)
    await say(t, phone, { reply: 'menu:crops' })
    expect(textOf((await replies(phone, seen))[0]!)).toMatch(/^Cultivos por estado:/)

    seen = await lastSeq(phone)
    await say(t, phone, { reply: 'menu:orders' })
    // the club has a member's order; a grower sees only their own, and has none
    expect(textOf((await replies(phone, seen))[0]!)).toBe('Todavía no tenés pedidos.')
  })
})
