import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisInboxStore } from '../../src/chat/inbox/store.ts'
import type { InboundMessage } from '../../src/chat/inbound.ts'
import type { HistoryMessage, Recorded } from '../../src/chat/store/index.ts'
import { encodeMail } from '../../src/chat/mail.ts'
import { chatMetrics } from '../../src/chat/metrics.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { TurnWorker, type Turns } from '../../src/chat/worker.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { linkCode, newPhone, outbox, rewriteSession, savedRecord, say, textOf } from './support.ts'

// A worker that stalls past its lease, or dies before its results are saved, leaves the message to another
// worker, which runs the same turn again from the session as it was saved before. The member's commerce cart
// and orders must come out as if the turn had run once.

/** A turn worker's lane as these tests drive it: one turn at a time, its own metrics. */
const laneOptions = (app: TestApp['app']) => ({
  owner: 'test-worker',
  leaseMs: 2_000,
  concurrency: 1,
  shards: app.config.chat.shards,
  maxTries: 5,
  log: app.log,
  metrics: chatMetrics(new Registry(), async () => 0),
})

/** Offers the phone to the worker's lane and stops the lane once the phone has nothing pending (10 s at most). */
async function runLane (worker: TurnWorker, store: RedisChatStore, phone: string): Promise<void> {
  worker.runner.start()
  worker.runner.offer([phone])
  const deadline = Date.now() + 10_000
  while (await store.pending(phone) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  await worker.runner.stop(1_000)
}

describe('a chat turn run twice (redis)', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'redis' }) })
  afterAll(async () => { await t.close() })

  const savedSession = async (phone: string) => (await savedRecord(t.app, phone)).d
  /** Puts back a session saved before the turn: as if the turn's results had never been saved. */
  const rewind = async (phone: string, doc: string) => { await rewriteSession(t.app, phone, doc) }

  async function linkedMember (phone: string): Promise<string> {
    const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    await say(t, phone, {
      text: `LINK-${await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })}`
    })
    return token
  }

  async function lastReplies (phone: string, after: number): Promise<string[]> {
    return (await outbox(t, phone, after)).map((m) => textOf(m.body))
  }

  it('adds a quantity once: the commerce cart holds what the chat cart says', async () => {
    const phone = newPhone()
    const token = await linkedMember(phone)
    await say(t, phone, { reply: 'menu:browse' })
    await say(t, phone, { reply: 'product:prod_norte_aceite_cbd' })
    await say(t, phone, { text: '1' })
    await say(t, phone, { reply: 'cart:browse' })
    await say(t, phone, { reply: 'product:prod_norte_aceite_cbd' })

    const before = await savedSession(phone)
    await say(t, phone, { text: '2' })
    await rewind(phone, before)
    await say(t, phone, { text: '2' })

    const session = JSON.parse(await savedSession(phone))
    expect(session.state).toBe('VIEWING_CART')
    expect(session.cart).toMatchObject([{ variantId: expect.any(String), quantity: 3 }])
    const cart = await t.app.inject({ url: `/store/carts/${session.cartId}`, headers: { authorization: `Bearer ${token}`, 'tenant-id': 'club-norte' } })
    expect(cart.statusCode).toBe(200)
    expect(cart.json().cart.items.map((i: { quantity: number }) => i.quantity).reduce((a: number, b: number) => a + b, 0)).toBe(3)
  })

  it('places an order once: confirming again answers the order already placed', async () => {
    const phone = newPhone()
    await linkedMember(phone)
    await say(t, phone, { reply: 'menu:browse' })
    await say(t, phone, { reply: 'product:prod_norte_aceite_cbd' })
    await say(t, phone, { text: '1' })
    await say(t, phone, { reply: 'cart:checkout' })

    const before = await savedSession(phone)
    const seen = (await outbox(t, phone)).at(-1)!.seq
    await say(t, phone, { reply: 'order:confirm' })
    const first = (await lastReplies(phone, seen))[0]!
    const displayId = /Pedido #(\S+) realizado/.exec(first)?.[1]
    expect(displayId).toBeDefined()

    await rewind(phone, before)
    const again = (await outbox(t, phone)).at(-1)!.seq
    await say(t, phone, { reply: 'order:confirm' })
    expect((await lastReplies(phone, again))[0]).toMatch(new RegExp(`Pedido #${displayId} realizado`))
    const session = JSON.parse(await savedSession(phone))
    expect(session).toMatchObject({ state: 'MAIN_MENU', cart: [] })
  })
})

describe('a link code\'s remembered result (redis)', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'redis' }) })
  afterAll(async () => { await t.close() })

  it('is gone once the linking turn is committed, and the phone is linked', async () => {
    const phone = newPhone()
    const store = new RedisChatStore(t.app.redis!, t.app.config.chat.shards)
    const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    const code = await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })
    await say(t, phone, { text: `LINK-${code}` })
    expect((await outbox(t, phone)).map((m) => textOf(m.body)).join('\n')).toMatch(/Tu cuenta quedó vinculada/)
    expect(await store.linkResult(phone, code)).toBeUndefined()
  })

  it('outlives a turn that failed before its commit, and is dropped by the re-run that commits', async () => {
    const phone = newPhone()
    const store = new RedisChatStore(t.app.redis!, t.app.config.chat.shards)
    const code = `CODE-${phone}`
    const seen: Array<string | undefined> = []
    // fault injection: the turn consumes the code (remembering its result), then dies before its commit once
    const turns: Turns = {
      run: async (message, session) => {
        const remembered = await store.linkResult(phone, code)
        seen.push(remembered)
        if (remembered === undefined) {
          await store.putLinkResult(phone, code, '{"type":"LINK_OK"}')
          throw new Error('the worker died before its commit')
        }
        return { doc: '{}', applied: [message.id, ...session.applied], replies: [], before: 'A', after: 'A', linkCodes: [code] }
      },
    }
    const none = () => {}
    const unrecorded = { turnRecord: () => undefined, committing: none }
    const noSender = { leaseOwner: () => undefined, handOver: none }
    const worker = new TurnWorker(store, turns, unrecorded, noSender, { ...laneOptions(t.app), crashPoint: none, handedBack: none })
    const id = `link-${phone}`
    await store.accept([{ phone, id, body: encodeMail({ id, phone, receivedAt: Date.now(), input: { kind: 'text', text: `LINK-${code}` } }) }])
    await runLane(worker, store, phone)
    expect(seen).toEqual([undefined, '{"type":"LINK_OK"}'])
    expect(await store.linkResult(phone, code)).toBeUndefined()
  })
})

describe('a turn\'s conversation history (redis)', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'redis' }) })
  afterAll(async () => { await t.close() })

  it('is recorded once by the commit: a run that died before its commit left none, the re-run that commits leaves it', async () => {
    const phone = newPhone()
    const limits = { historyMs: 60_000, historyMax: 50 }
    const store = new RedisChatStore(t.app.redis!, t.app.config.chat.shards, limits)
    const inbox = new RedisInboxStore(t.app.redis!, t.app.config.chat.shards, limits, Date.now)
    const runs: number[] = []
    const history: Array<HistoryMessage[]> = []
    // fault injection: the first run computes the turn and dies before its commit (the worker's record of it made)
    const turns: Turns = {
      run: async (message, session) => ({ doc: '{"tenantId":"club-norte"}', applied: [message.id, ...session.applied], replies: [], before: 'A', after: 'A' }),
    }
    const none = () => {}
    const recording = {
      turnRecord: (message: InboundMessage) => ({
        tenantId: 'club-norte',
        messages: [{ id: message.id, at: message.receivedAt, direction: 'in' as const, author: 'member' as const, type: 'text', text: 'hola' }]
      }),
      committing: (_phone: string, recorded: Recorded) => { history.push(recorded.messages) },
    }
    const worker = new TurnWorker(store, turns, recording, { leaseOwner: () => undefined, handOver: none }, {
      ...laneOptions(t.app),
      handedBack: none,
      crashPoint: () => {
        runs.push(Date.now())
        if (runs.length === 1) throw new Error('the worker died before its commit')
      },
    })
    const id = `hola-${phone}`
    const at = Date.now()
    await store.accept([{ phone, id, body: encodeMail({ id, phone, receivedAt: at, input: { kind: 'text', text: 'hola' } }) }])
    await runLane(worker, store, phone)
    expect(runs).toHaveLength(2)
    expect(history).toHaveLength(1)
    expect(await inbox.history('club-norte', phone, 0, 10)).toEqual([{ id, at, direction: 'in', author: 'member', type: 'text', text: 'hola' }])
    expect(await inbox.conversation('club-norte', phone)).toMatchObject({ tenantId: 'club-norte', unread: 1, lastAt: at })
  })
})
