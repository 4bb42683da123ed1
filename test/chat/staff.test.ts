import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { choiceIds, linkCode, newPhone, outbox, say, textOf } from './support.ts'

// Staff link a phone by a code made with their own token (the login form is for members): they get the crops
// report, and the orders report is the club's, since the orders API shows staff every order.

describe('a grower in the chat (memory)', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'memory' }) })
  afterAll(async () => { await t.close() })

  const replies = async (phone: string, after: number) => (await outbox(t, phone, after)).map((m) => m.body)
  const lastSeq = async (phone: string) => (await outbox(t, phone)).at(-1)?.seq ?? 0

  it('links by code, sees the crops, and the orders as the club\'s', async () => {
    const phone = newPhone()
    const member = { customerId: 'user_grower_norte', email: 'grower@club-norte.test', name: 'Grower', tenantId: 'club-norte' }
    const token = await t.token('grower', ['club-norte'], { sub: member.customerId, name: member.name, email: member.email })
    await say(t, phone, { text: `LINK-${await linkCode(t, { ...member, token })}` })
    const menu = (await outbox(t, phone)).at(-1)!.body
    expect(choiceIds(menu)).toEqual(['menu:browse', 'menu:cart', 'menu:orders', 'menu:notifications', 'menu:crops', 'menu:unlink'])

    let seen = await lastSeq(phone)
    await say(t, phone, { reply: 'menu:crops' })
    expect(textOf((await replies(phone, seen))[0]!)).toMatch(/^Cultivos por estado:/)

    seen = await lastSeq(phone)
    await say(t, phone, { reply: 'menu:orders' })
    expect(textOf((await replies(phone, seen))[0]!)).toMatch(/^(Últimos pedidos del club:|El club todavía no tiene pedidos\.)/)
  })
})
