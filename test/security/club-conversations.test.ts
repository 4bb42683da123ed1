import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { notifyMember } from '../../src/orders/notify.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { linkCode, messageBody, newPhone, postWebhook, savedSession, startFakeProvider, type FakeProvider, type Input } from '../chat/support.ts'

// A member of two clubs talks to both from one phone. Whatever the order of the member's choices, the clubs'
// order updates and their staff's messages, each club reads its own conversation only: no message is in both,
// a club's staff messages and order updates are in that club's conversation only, an order update of one club
// leaves the other's conversation (and its handoff) as it was, and a club that took the conversation over
// silences the bot while the member talks to that club. Through the webhook, the staff routes and a loopback
// provider, on the real Redis.

const CLUBS = ['club-norte', 'club-sur'] as const
type Club = typeof CLUBS[number]
const ADMIN: Record<Club, string> = { 'club-norte': 'admin-norte', 'club-sur': 'admin-sur' }

type Step =
  | { kind: 'choose', club: Club }
  | { kind: 'say', text: string }
  | { kind: 'staff', club: Club }
  | { kind: 'handback', club: Club }
  | { kind: 'order', club: Club }

const club = fc.constantFrom(...CLUBS)
const step: fc.Arbitrary<Step> = fc.oneof(
  club.map((c) => ({ kind: 'choose' as const, club: c })),
  fc.constantFrom('hola', 'menu', 'quiero hablar con una persona').map((text) => ({ kind: 'say' as const, text })),
  club.map((c) => ({ kind: 'staff' as const, club: c })),
  club.map((c) => ({ kind: 'handback' as const, club: c })),
  club.map((c) => ({ kind: 'order' as const, club: c }))
)

interface Message { id: string, author: string, direction: string }
interface Listed { phone: string, lastActivityAt: string, handoff: unknown }

describe('a member of two clubs: two conversations that never mix (redis, provider stand-in)', () => {
  let provider: FakeProvider
  let t: TestApp
  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url, CHAT_HANDOFF_TIMEOUT_MS: '600000' } })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })

  const staff = async (c: Club) => await t.auth('admin', c, { sub: ADMIN[c] })
  const say = async (phone: string, input: Input, id = `wamid.${randomUUID()}`): Promise<string> => {
    const res = await postWebhook(t.app, messageBody(phone, input, id), { key: randomUUID() })
    expect(res.statusCode).toBe(200)
    await t.app.chatWorker.idle(phone)
    return id
  }
  const history = async (c: Club, phone: string): Promise<Message[] | undefined> => {
    const res = await t.app.inject({ url: `/api/chat/conversations/${phone}/messages?limit=100`, headers: await staff(c) })
    if (res.statusCode === 404) return undefined
    expect(res.statusCode).toBe(200)
    return res.json().messages
  }
  const listed = async (c: Club, phone: string): Promise<Listed | undefined> => {
    const res = await t.app.inject({ url: '/api/chat/conversations?limit=100', headers: await staff(c) })
    return (res.json().conversations as Listed[]).find((x) => x.phone === phone)
  }
  const sessionClub = async (phone: string): Promise<string | undefined> => (await savedSession(t.app, phone)).tenantId
  /** Waits until the predicate holds of the club's history (order updates are recorded after they are queued). */
  const eventually = async (c: Club, phone: string, holds: (m: Message[]) => boolean): Promise<void> => {
    for (let i = 0; i < 100; i++) {
      if (holds((await history(c, phone)) ?? [])) return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error(`${c}'s conversation with ${phone} never showed what was expected`)
  }

  /** The phone linked to cus_ana at both clubs, talking to club-norte. */
  const member = async (): Promise<string> => {
    const phone = newPhone()
    const token = await t.token('member', [...CLUBS], { sub: 'cus_ana', name: 'Ana', email: 'ana@example.com' })
    for (const c of CLUBS) {
      await say(phone, {
        text: `LINK-${await linkCode(t, { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', tenantId: c, token })}`
      })
    }
    await say(phone, { reply: 'tenant:club-norte' })
    return phone
  }

  /** No message in both conversations; each club's staff messages and order updates in its own only. */
  const neverMixed = async (phone: string, staffSent: Map<Club, Set<string>>, updates: Map<Club, Set<string>>) => {
    const [norte, sur] = await Promise.all(CLUBS.map(async (c) => (await history(c, phone)) ?? []))
    const of = { 'club-norte': norte as Message[], 'club-sur': sur as Message[] }
    const surIds = new Set(of['club-sur'].map((m) => m.id))
    expect(of['club-norte'].filter((m) => surIds.has(m.id))).toEqual([])
    for (const c of CLUBS) {
      const other = c === 'club-norte' ? 'club-sur' : 'club-norte'
      for (const m of of[c]) {
        if (m.author.startsWith('staff:')) expect(m.author).toBe(`staff:${ADMIN[c]}`)
        expect(staffSent.get(other)?.has(m.id) ?? false).toBe(false)
        expect(updates.get(other)?.has(m.id) ?? false).toBe(false)
      }
    }
  }

  it('whatever the order of choices, staff messages, hand-backs and order updates', async () => {
    let orders = 0
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 8 }), async (steps) => {
      const phone = await member()
      const staffSent = new Map<Club, Set<string>>(CLUBS.map((c) => [c, new Set()]))
      const updates = new Map<Club, Set<string>>(CLUBS.map((c) => [c, new Set()]))
      for (const s of steps) {
        if (s.kind === 'choose') {
          await say(phone, { reply: 'menu:switch-club' })
          await say(phone, { reply: `tenant:${s.club}` })
        } else if (s.kind === 'say') {
          const talkingTo = await sessionClub(phone) as Club
          // requested or taken (a request does not time out within the test): the bot is silent for that club
          const silent = ((await listed(talkingTo, phone))?.handoff ?? null) !== null
          const before = provider.to(phone).length
          const id = await say(phone, { text: s.text })
          // the message is in the conversation of the club the member talks to, and not in the other's
          await eventually(talkingTo, phone, (m) => m.some((x) => x.id === id))
          const other = talkingTo === 'club-norte' ? 'club-sur' : 'club-norte'
          expect(((await history(other, phone)) ?? []).some((x) => x.id === id)).toBe(false)
          // that club took the conversation over (or was asked for a person): the bot says nothing
          if (silent) expect(provider.to(phone).length).toBe(before)
        } else if (s.kind === 'staff') {
          const res = await t.app.inject({
            method: 'POST', url: `/api/chat/conversations/${phone}/messages`, headers: await staff(s.club), payload: { text: `from ${s.club}` }
          })
          // a club that never talked with the phone has no conversation to write in: 404, whatever the other club has
          if (res.statusCode === 404) expect(await history(s.club, phone)).toBeUndefined()
          // nor free text to a member who never wrote to this club (its conversation holds only its order updates)
          else if (res.statusCode === 409) expect(((await history(s.club, phone)) ?? []).filter((m) => m.direction === 'in')).toEqual([])
          else {
            expect(res.statusCode).toBe(201)
            staffSent.get(s.club)!.add(res.json().message.id)
            await t.app.chatWorker.idle(phone)
          }
        } else if (s.kind === 'handback') {
          const res = await t.app.inject({ method: 'POST', url: `/api/chat/conversations/${phone}/handback`, headers: await staff(s.club) })
          expect([200, 404]).toContain(res.statusCode)
          await t.app.chatWorker.idle(phone)
        } else {
          const other = s.club === 'club-norte' ? 'club-sur' : 'club-norte'
          const before = await listed(other, phone)
          const id = `ord_${s.club}_${++orders}`
          await notifyMember(
            t.app.notifier, t.app.log, (await t.app.tenants.get(s.club))!, { id, displayId: String(orders), customerId: 'cus_ana', shippingMethod: 'pickup' },
            'order.cancelled'
          )
          await t.app.chatWorker.idle(phone)
          await eventually(s.club, phone, (m) => m.some((x) => x.author === 'system' && x.id.includes(id)))
          for (const m of (await history(s.club, phone)) ?? []) if (m.id.includes(id)) updates.get(s.club)!.add(m.id)
          // the other club's conversation (its last activity, its handoff) did not move
          expect(await listed(other, phone)).toEqual(before)
        }
        await neverMixed(phone, staffSent, updates)
      }
    }), { numRuns: 12 })
  })

  it('a take-over by one club silences the bot for that club, through the other club\'s order updates and conversation', async () => {
    const phone = await member()
    await say(phone, { text: 'hola' })
    await say(phone, { reply: 'menu:switch-club' })
    await say(phone, { reply: 'tenant:club-sur' })
    expect(await sessionClub(phone)).toBe('club-sur')
    const taken = await t.app.inject({ method: 'POST', url: `/api/chat/conversations/${phone}/takeover`, headers: await staff('club-norte') })
    expect(taken.statusCode).toBe(200)
    // the member talks to the other club: its bot answers
    let before = provider.to(phone).length
    await say(phone, { text: 'menu' })
    expect(provider.to(phone).length).toBeGreaterThan(before)
    // an order update from the other club moves neither the conversation nor its handoff
    await notifyMember(
      t.app.notifier, t.app.log, (await t.app.tenants.get('club-sur'))!,
      { id: 'ord_sur_takeover', displayId: '9', customerId: 'cus_ana', shippingMethod: 'pickup' }, 'order.cancelled'
    )
    await t.app.chatWorker.idle(phone)
    await eventually('club-sur', phone, (m) => m.some((x) => x.id.includes('ord_sur_takeover')))
    expect((await listed('club-norte', phone))?.handoff).toMatchObject({ status: 'taken', by: ADMIN['club-norte'] })
    expect((await t.app.inject({ url: `/api/chat/conversations/${phone}/messages`, headers: await staff('club-norte') })).statusCode).toBe(200)
    // back with the club that took it over: the bot is silent
    await say(phone, { reply: 'menu:switch-club' })
    await say(phone, { reply: 'tenant:club-norte' })
    expect(await sessionClub(phone)).toBe('club-norte')
    before = provider.to(phone).length
    await say(phone, { text: 'hola?' })
    expect(provider.to(phone).length).toBe(before)
  })
})
