import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { shardOf } from '../../src/stores/shards.ts'
import { appliedMark, DEAD_KEPT, deadLetterId, isApplied, type ChatStore, type Commit, type HistoryMessage, type TurnWork } from '../../src/chat/store/index.ts'
import { MemoryChatStore } from '../../src/chat/store/memory.ts'
import { MemoryInboxStore, RedisInboxStore, type InboxStore } from '../../src/chat/inbox/store.ts'
import { createReceiptStore, type ReceiptStore, type SentReply } from '../../src/chat/receipts/index.ts'
import { testRedis, testRedisCluster } from '../helper.ts'
import { newPhone } from './support.ts'

// The same contract on Redis and in memory: arrival order, de-duplication, leases, the atomic commit of a
// turn (session, applied id, replies, ack), retries, dead letters and the outbox lane.

const SHARDS = 8
// the conversation history a commit records a turn in
const limits = { historyMs: 24 * 60 * 60_000, historyMax: 50 }
// how long a delivered reply's receipt is kept
const RECEIPT_TTL_MS = 60_000
type Made = { store: ChatStore, inbox: InboxStore, receipts: ReceiptStore, cleanup: () => Promise<void> }
const stores: Array<['redis' | 'cluster' | 'memory', () => Promise<Made>]> = [
  ['redis', async () => {
    const r = await testRedis()
    const receipts = createReceiptStore(r.redis, { shards: SHARDS, ttlMs: RECEIPT_TTL_MS })
    return {
      store: new RedisChatStore(r.redis, SHARDS, limits, undefined, RECEIPT_TTL_MS),
      inbox: new RedisInboxStore(r.redis, SHARDS, limits, Date.now),
      receipts,
      cleanup: r.cleanup
    }
  }],
  ['cluster', async () => {
    const r = await testRedisCluster()
    const receipts = createReceiptStore(r.redis, { shards: SHARDS, ttlMs: RECEIPT_TTL_MS })
    return {
      store: new RedisChatStore(r.redis, SHARDS, limits, undefined, RECEIPT_TTL_MS),
      inbox: new RedisInboxStore(r.redis, SHARDS, limits, Date.now),
      receipts,
      cleanup: r.cleanup
    }
  }],
  ['memory', async () => {
    const inbox = new MemoryInboxStore(SHARDS, limits, Date.now)
    const receipts = createReceiptStore(null, { shards: SHARDS, ttlMs: RECEIPT_TTL_MS })
    return {
      store: new MemoryChatStore(SHARDS, Date.now, inbox, async (reply) => { await receipts.recordSent(reply) }), inbox, receipts, cleanup: async () => {}
    }
  }],
]

const sleep = async (ms: number) => { await new Promise((resolve) => setTimeout(resolve, ms)) }

describe.each(stores)('chat store (%s)', (name, make) => {
  let store: ChatStore
  let inbox: InboxStore
  let receipts: ReceiptStore
  let cleanup: () => Promise<void>
  beforeAll(async () => { ({ store, inbox, receipts, cleanup } = await make()) })
  afterAll(async () => { await cleanup() })

  async function take (phone: string, owner = 'w1', leaseMs = 10_000): Promise<TurnWork> {
    const taken = await store.takeTurn(phone, owner, leaseMs)
    if (taken.kind !== 'ok') throw new Error(`expected work, got ${taken.kind}`)
    return taken.work
  }
  const commitOf = (work: TurnWork, doc: string | undefined, replies: string[] = []): Commit =>
    ({ expected: work.session.version, doc, applied: [work.message, ...work.session.applied], message: work.message, replies })

  it('keeps arrival order, drops an id seen before, and commits session, applied ids and replies with the ack', async () => {
    const phone = newPhone()
    expect(await store.accept([{ phone, id: `${phone}-1`, body: 'one' }])).toEqual({ stored: 1, due: [phone] })
    const first = await take(phone)
    // mail behind mail a worker holds: nobody needs telling
    expect(await store.accept([{ phone, id: `${phone}-1`, body: 'one again' }, { phone, id: `${phone}-2`, body: 'two' }])).toEqual({ stored: 1, due: [] })
    expect(first).toMatchObject({ message: 'one', session: { version: 0, doc: undefined, applied: [] }, tries: 1 })
    const next = await store.commitTurn(phone, 'w1', commitOf(first, 'doc-1', ['r1', 'r2']), 10_000)
    expect(next).toMatchObject({
      kind: 'more', senderDue: true, work: { message: 'two', session: { version: 1, doc: 'doc-1', applied: [appliedMark('one')] }, tries: 1 }
    })
    if (next.kind !== 'more') return
    // the replies wait in the outbox, in order
    const sent = await store.takeSend(phone, 's1', 10_000)
    expect(sent).toMatchObject({ kind: 'ok', work: { entry: 'r1', tries: 0 } })
    // replies behind replies a sender holds: nobody needs telling
    expect(await store.commitTurn(phone, 'w1', commitOf(next.work, 'doc-2', ['r3']), 10_000)).toEqual({ kind: 'done' })
    expect(await store.sent(phone, 's1', 'r1', 10_000)).toMatchObject({ kind: 'more', work: { entry: 'r2' } })
    expect(await store.pending(phone)).toBe(true)
    expect(await store.sent(phone, 's1', 'r2', 10_000)).toMatchObject({ kind: 'more', work: { entry: 'r3' } })
    expect(await store.sent(phone, 's1', 'r3', 10_000)).toEqual({ kind: 'done' })
    expect(await store.pending(phone)).toBe(false)
  })

  it('a leased phone is busy for others; after the lease runs out another worker takes the same head, and the old owner cannot commit', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-x`, body: 'x' }])
    const dying = await take(phone, 'dies', 80)
    const busy = await store.takeTurn(phone, 'other', 10_000)
    expect(busy.kind).toBe('busy')
    const waitOf = async () => (await store.due(shardOf(phone, SHARDS), { turn: 1000, send: 1000 })).turn.find((w) => w.phone === phone)?.inMs
    expect(await waitOf()).toBeGreaterThan(0)
    await sleep(150)
    expect(await waitOf()).toBe(0)
    // the take counts no try: the earlier attempt is named as open, for the taker to judge
    expect(await store.takeTurn(phone, 'other', 10_000)).toMatchObject({ kind: 'ok', work: { message: 'x', tries: 1, open: ['dies'] } })
    expect(await store.commitTurn(phone, 'dies', commitOf(dying, 'stale'), 10_000)).toEqual({ kind: 'lost' })
    expect(await store.renew('turn', phone, 'dies', 10_000)).toBe(false)
    expect(await store.renew('turn', phone, 'other', 10_000)).toBe(true)
  })

  it('a lease whose time ran out is still its owner\'s until another takes the phone: its commit, renewal and send ack go through', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-s`, body: 's' }])
    const slow = await take(phone, 'slow', 50)
    await sleep(100)
    expect(await store.renew('turn', phone, 'slow', 50)).toBe(true)
    await sleep(100)
    const next = await store.commitTurn(phone, 'slow', commitOf(slow, 'doc', ['r']), 50)
    expect(next).toMatchObject({ kind: 'done', senderDue: true })
    expect(await store.takeSend(phone, 'sender', 50)).toMatchObject({ kind: 'ok', work: { entry: 'r' } })
    await sleep(100)
    expect(await store.sent(phone, 'sender', 'r', 50)).toEqual({ kind: 'done' })
    expect(await store.pending(phone)).toBe(false)
  })

  it('a take opens an attempt without counting it: a commit that lost its lease gives it back; one whose worker died counts once judged', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-a`, body: 'a' }])
    // five owners in turn lose the lease to time, and another took it each time: no try counted
    let prior: TurnWork | undefined
    for (const owner of ['o1', 'o2', 'o3', 'o4', 'o5', 'o6']) {
      await sleep(40)
      const work = await take(phone, owner, 30)
      expect(work.tries).toBe(1)
      if (prior) {
        expect(await store.commitTurn(phone, `o${Number(owner.slice(1)) - 1}`, commitOf(prior, 'late'), 30)).toEqual({ kind: 'lost' })
        // the late one gives its attempt back: it ended without failing
        expect(await store.endAttempts(phone, 'a', [`o${Number(owner.slice(1)) - 1}`], false)).toBe(0)
      }
      prior = work
    }
    await sleep(40)
    // o6 died on it (and never gave back): the next taker is told, and counts it once o6 is judged gone
    const after = await take(phone, 'o7', 10_000)
    expect(after).toMatchObject({ tries: 1, open: ['o6'] })
    await store.heartbeat('o7', 10_000)
    expect(await store.gone(['o6', 'o7'])).toEqual(['o6'])
    expect(await store.endAttempts(phone, 'a', ['o6'], true)).toBe(1)
    // counted once: o6 is no longer open
    expect(await store.endAttempts(phone, 'a', ['o6'], true)).toBe(1)
    // a failure counts too, and a later take answers both (and this one)
    await store.release('turn', phone, 'o7', 0, true, 'boom')
    expect(await take(phone, 'o8', 10_000)).toMatchObject({ tries: 3, open: [], lastError: 'boom' })
    // another head: nothing of the old attempts is there
    expect(await store.endAttempts(phone, 'not the head', ['o8'], true)).toBe(0)
  })

  it('a failed turn is released with a backoff; a lost connection does not count as a try', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-f`, body: 'f' }])
    await take(phone)
    await store.release('turn', phone, 'w1', 60, true, 'boom')
    expect((await store.takeTurn(phone, 'w1', 10_000)).kind).toBe('busy')
    await sleep(100)
    const again = await take(phone)
    expect(again).toMatchObject({ tries: 2, lastError: 'boom' })
    await store.release('turn', phone, 'w1', 0, false)
    expect(await take(phone)).toMatchObject({ tries: 2 })
  })

  it('a dead letter leaves the mailbox with its reason and can be driven back', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-p`, body: 'poison' }, { phone, id: `${phone}-q`, body: 'next' }])
    const work = await take(phone)
    const letter = {
      id: deadLetterId(shardOf(phone, SHARDS), phone),
      lane: 'turn' as const,
      phone,
      tenantId: 'club-norte',
      reason: 'bad data',
      at: Date.now(),
      tries: 5,
      payload: 'poison'
    }
    expect(await store.deadTurn(phone, 'w1', { ...letter, payload: 'not the head' }, 10_000)).toEqual({ kind: 'lost' })
    const next = await store.deadTurn(phone, 'w1', letter, 10_000)
    expect(next).toMatchObject({ kind: 'more', work: { message: 'next' } })
    expect(work.message).toBe('poison')
    expect(await store.deadLetter(letter.id)).toEqual(letter)
    expect((await store.deadLetters('club-norte', 1000)).map((l) => l.id)).toContain(letter.id)
    expect((await store.deadLetters('club-sur', 1000)).map((l) => l.id)).not.toContain(letter.id)
    expect(await store.redrive(letter.id)).toEqual(letter)
    expect(await store.redrive(letter.id)).toBeUndefined()
    expect(await store.deadLetter(letter.id)).toBeUndefined()
    if (next.kind !== 'more') return
    // driven back to the end of the mailbox: after the message that was behind it
    expect(await store.commitTurn(phone, 'w1', commitOf(next.work, 'd'), 10_000)).toMatchObject({ kind: 'more', work: { message: 'poison' } })
  })

  it("each club's dead letters are its own: another club's many on the same shard neither show nor push them out", async () => {
    const phone = newPhone()
    const s = shardOf(phone, SHARDS)
    const norte = {
      id: deadLetterId(s, `n${phone}`), lane: 'turn' as const, phone, tenantId: 'club-norte', reason: 'bad data', at: Date.now() - 1_000, tries: 5, payload: 'n'
    }
    const sur = Array.from({ length: DEAD_KEPT + 1 }, (_, i) =>
      ({
        id: deadLetterId(s, `s${i}-${phone}`),
        lane: 'turn' as const,
        phone,
        tenantId: 'club-sur',
        reason: 'bad data',
        at: Date.now() + i,
        tries: 5,
        payload: `s${i}`
      }))
    await store.accept([norte, ...sur].map((l) => ({ phone, id: l.id, body: l.payload })))
    await take(phone)
    for (const letter of [norte, ...sur]) expect((await store.deadTurn(phone, 'w1', letter, 10_000)).kind).not.toBe('lost')
    expect((await store.deadLetters('club-norte', 50)).map((l) => l.id)).toEqual([norte.id])
    const surs = await store.deadLetters('club-sur', DEAD_KEPT + 10)
    // the club's own oldest goes when it has more than it keeps
    expect(surs.map((l) => l.id)).toEqual(sur.slice(1).reverse().map((l) => l.id))
    expect(await store.deadLetter((sur[0] as typeof norte).id)).toBeUndefined()
  }, 30_000)

  it('a send that fails counts its tries and backs off; a refused one is a dead letter', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-s`, body: 's' }])
    await store.commitTurn(phone, 'w1', commitOf(await take(phone), 'd', ['a', 'b']), 10_000)
    expect(await store.takeSend(phone, 's1', 10_000)).toMatchObject({ kind: 'ok', work: { entry: 'a', tries: 0 } })
    await store.release('send', phone, 's1', 40, true)
    expect((await store.takeSend(phone, 's2', 10_000)).kind).toBe('busy')
    await sleep(80)
    expect(await store.takeSend(phone, 's2', 10_000)).toMatchObject({ kind: 'ok', work: { entry: 'a', tries: 1 } })
    const letter = {
      id: deadLetterId(shardOf(phone, SHARDS), `s${phone}`),
      lane: 'send' as const,
      phone,
      tenantId: undefined,
      reason: '400',
      at: Date.now(),
      tries: 2,
      payload: 'a'
    }
    expect(await store.sent(phone, 's1', 'a', 10_000, letter)).toEqual({ kind: 'lost' })
    expect(await store.sent(phone, 's2', 'a', 10_000, letter)).toMatchObject({ kind: 'more', work: { entry: 'b', tries: 0 } })
    expect((await store.deadLetter(letter.id))?.reason).toBe('400')
    expect(await store.outboxPhones()).toBeGreaterThanOrEqual(1)
  })

  it('a delivered reply leaves the outbox with its receipt started, once; its lease goes on for the next head', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-d`, body: 'd' }])
    await store.commitTurn(phone, 'w1', commitOf(await take(phone), 'd', ['a', 'b']), 10_000)
    expect(await store.takeSend(phone, 's1', 10_000)).toMatchObject({ kind: 'ok', work: { entry: 'a' } })
    const receipt: SentReply = { address: phone, messageId: `wamid.${phone}`, replyId: `${phone}-d:0`, tenantId: 'club-norte', kind: 'reply', at: 1 }
    expect(await store.delivered(phone, 's1', 'a', 10_000, receipt)).toMatchObject({ kind: 'more', work: { entry: 'b', tries: 0 } })
    expect(await receipts.receiptsOfReplies(phone, [receipt.replyId])).toEqual(new Map([[receipt.replyId, {}]]))
    expect(
      (await receipts.apply(phone, [{ messageId: receipt.messageId, status: 'read', at: 5, errors: [] }]))[0]
    ).toMatchObject({ known: true, sent: receipt })
    // the same record again (its first answer lost with the connection): nothing more leaves the outbox
    expect(await store.delivered(phone, 's1', 'a', 10_000, receipt)).toEqual({ kind: 'lost' })
    expect((await store.takeSend(phone, 's2', 10_000)).kind).toBe('busy')
    // no message id from the provider: no receipt, the head still leaves
    expect(await store.delivered(phone, 's1', 'b', 10_000)).toEqual({ kind: 'done' })
    expect(await store.pending(phone)).toBe(false)
  })

  it('a delivery recorded after its lease ran out still leaves the outbox, and leases the next head to its sender unless another holds it', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-l`, body: 'l' }])
    await store.commitTurn(phone, 'w1', commitOf(await take(phone), 'd', ['a', 'b', 'c']), 10_000)
    expect((await store.takeSend(phone, 's1', 60)).kind).toBe('ok')
    // Redis could not record it within the lease, nobody took the phone meanwhile: the record goes through
    await sleep(100)
    expect(await store.delivered(phone, 's1', 'a', 10_000)).toMatchObject({ kind: 'more', work: { entry: 'b' } })
    expect((await store.takeSend(phone, 's2', 10_000)).kind).toBe('busy')
    // another sender took the phone once the lease ran out: the head leaves all the same, its lease stays theirs
    await store.release('send', phone, 's1', 0, false)
    expect(await store.takeSend(phone, 's2', 10_000)).toMatchObject({ kind: 'ok', work: { entry: 'b' } })
    expect(await store.delivered(phone, 's1', 'b', 10_000)).toEqual({ kind: 'lost' })
    expect(await store.delivered(phone, 's2', 'b', 10_000)).toEqual({ kind: 'lost' })
    expect(await store.renew('send', phone, 's2', 10_000)).toBe(true)
    await store.release('send', phone, 's2', 0, false)
    expect(await store.takeSend(phone, 's3', 10_000)).toMatchObject({ kind: 'ok', work: { entry: 'c' } })
  })

  it('a take that spares run-out leases leaves one another sender never gave back, and takes one given back or its own', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-p`, body: 'p' }])
    await store.commitTurn(phone, 'w1', commitOf(await take(phone), 'd', ['a', 'b']), 10_000)
    expect((await store.takeSend(phone, 's1', 60)).kind).toBe('ok')
    await sleep(100)
    // s1's lease ran out in its hands (Redis was away, say): spared, s1 itself takes it again
    expect(await store.takeSend(phone, 's2', 10_000, 500)).toEqual({ kind: 'busy', inMs: 500 })
    expect(await store.takeSend(phone, 's1', 60, 500)).toMatchObject({ kind: 'ok', work: { entry: 'a' } })
    // given back: anyone takes it, sparing or not
    await store.release('send', phone, 's1', 0, false)
    expect(await store.takeSend(phone, 's2', 10_000, 500)).toMatchObject({ kind: 'ok', work: { entry: 'a' } })
    // without sparing, a run-out lease is anyone's, as always, and the take says whose it was
    await store.release('send', phone, 's2', 0, false)
    expect(await store.takeSend(phone, 's3', 60)).toEqual({ kind: 'ok', work: { phone, entry: 'a', tries: 0 } })
    await sleep(100)
    expect(await store.takeSend(phone, 's4', 10_000)).toEqual({ kind: 'ok', work: { phone, entry: 'a', tries: 0, from: 's3' } })
    // given back as it was (s3's, run out): others spare it again, s3 takes it
    expect(await store.spare(phone, 's4', 's3')).toBe(true)
    expect(await store.spare(phone, 's4', 's3')).toBe(false)
    expect(await store.takeSend(phone, 's5', 10_000, 500)).toEqual({ kind: 'busy', inMs: 500 })
    expect(await store.takeSend(phone, 's3', 10_000, 500)).toEqual({ kind: 'ok', work: { phone, entry: 'a', tries: 0 } })
    expect(await store.delivered(phone, 's3', 'a', 10_000)).toMatchObject({ kind: 'more', work: { entry: 'b' } })
  })

  it('a commit leaves an outbox whose send lease ran out in another sender\'s hands to the take (the sender is told)', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-1`, body: '1' }, { phone, id: `${phone}-2`, body: '2' }])
    const first = await take(phone)
    const next = await store.commitTurn(phone, 'w1', { ...commitOf(first, 'd1', ['r1']), sender: 's1' }, 10_000)
    expect(next).toMatchObject({ kind: 'more', send: { entry: 'r1' } })
    // s1's send lease runs out in its hands
    await store.renew('send', phone, 's1', 50)
    await sleep(100)
    if (next.kind !== 'more') return
    const second = await store.commitTurn(phone, 'w1', { ...commitOf(next.work, 'd2', ['r2']), sender: 's2' }, 10_000)
    expect(second).toEqual({ kind: 'done', senderDue: true })
    expect(await store.takeSend(phone, 's2', 10_000)).toEqual({ kind: 'ok', work: { phone, entry: 'r1', tries: 0, from: 's1' } })
  })

  it('accepts a delivery key once per phone, with all its letters, across phones, in order', async () => {
    const [a, b] = [newPhone(), newPhone()]
    const key = `k-${a}`
    const letters = [{ phone: a, id: `${a}-1`, body: 'a1' }, { phone: b, id: `${b}-1`, body: 'b1' }, { phone: a, id: `${a}-2`, body: 'a2' }]
    const accepted = await store.accept(letters, { deliveryKey: key })
    expect({ ...accepted, due: accepted.due.sort() }).toEqual({ stored: 3, due: [a, b].sort() })
    expect(await store.accept([{ phone: a, id: `${a}-3`, body: 'a3' }], { deliveryKey: key })).toEqual({ stored: 0, due: [] })
    expect(await store.pending(b)).toBe(true)
    const first = await take(a, `w-${a}`)
    expect(first.message).toBe('a1')
    expect(await store.commitTurn(a, `w-${a}`, commitOf(first, 'd'), 10_000)).toMatchObject({ kind: 'more', work: { message: 'a2' } })
  })

  it('notes when the phone last wrote, duplicates included', async () => {
    const phone = newPhone()
    expect(await store.lastInbound(phone)).toBeUndefined()
    await store.accept([{ phone, id: `${phone}-i`, body: 'i' }], { at: 1_000 })
    await store.accept([{ phone, id: `${phone}-i`, body: 'i' }], { at: 5_000 })
    expect(await store.lastInbound(phone)).toBe(5_000)
  })

  it('a commit that wakes the outbox leases it to the sender it names, which sends without taking it', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-1`, body: '1' }, { phone, id: `${phone}-2`, body: '2' }])
    const first = await take(phone)
    const next = await store.commitTurn(phone, 'w1', { ...commitOf(first, 'd1', ['r1']), sender: 's1' }, 10_000)
    expect(next).toMatchObject({ kind: 'more', send: { phone, entry: 'r1', tries: 0 } })
    expect(next).not.toHaveProperty('senderDue')
    expect((await store.takeSend(phone, 's2', 10_000)).kind).toBe('busy')
    if (next.kind !== 'more') return
    // the sender already on the outbox: nothing leased, nobody told
    expect(await store.commitTurn(phone, 'w1', { ...commitOf(next.work, 'd2', ['r2']), sender: 's1' }, 10_000)).toEqual({ kind: 'done' })
    expect(await store.sent(phone, 's1', 'r1', 10_000)).toMatchObject({ kind: 'more', work: { entry: 'r2' } })
    expect(await store.sent(phone, 's1', 'r2', 10_000)).toEqual({ kind: 'done' })
  })

  it('a phone with mail that nobody holds is due again with the next letter (its wake-up was lost)', async () => {
    const phone = newPhone()
    expect((await store.accept([{ phone, id: `${phone}-1`, body: '1' }])).due).toEqual([phone])
    expect((await store.accept([{ phone, id: `${phone}-2`, body: '2' }])).due).toEqual([phone])
    await take(phone)
    await store.release('turn', phone, 'w1', 60_000, true)
    // backing off: the one that released it will look again
    expect((await store.accept([{ phone, id: `${phone}-3`, body: '3' }])).due).toEqual([])
  })

  it('a heartbeat reports an instance that stopped beating once, to one caller', async () => {
    const [a, b, c] = [`a-${newPhone()}`, `b-${newPhone()}`, `c-${newPhone()}`]
    await store.heartbeat(a, 60_000)
    await store.heartbeat(b, 60_000)
    expect((await store.heartbeat(c, 60_000)).gone).not.toContain(a)
    await store.leave(a)
    const seen = await Promise.all([store.heartbeat(b, 60_000), store.heartbeat(c, 60_000)])
    expect(seen.flatMap((beat) => beat.gone).filter((o) => o === a)).toEqual([a])
    expect((await store.heartbeat(b, 60_000)).gone).not.toContain(a)
  })

  it('an instance reported and still silent is reported once more a while later, then removed; one that beats again is not', async () => {
    const [a, b, c, d] = [`a-${newPhone()}`, `b-${newPhone()}`, `c-${newPhone()}`, `d-${newPhone()}`]
    // short times, but not so short that d's own beat reports a
    await store.heartbeat(a, 300)
    await store.heartbeat(d, 300)
    await sleep(350)
    expect((await store.heartbeat(b, 1_000)).gone.filter((o) => o === a || o === d).sort()).toEqual([a, d].sort())
    // marked reported: still gone to a taker, not reported again within the reporter's beat time
    expect(await store.gone([a, d])).toEqual([a, d])
    expect((await store.heartbeat(c, 1_000)).gone).not.toContain(a)
    // d beats again (it was only slow): alive, not reported later; a stays silent and is reported once more
    await store.heartbeat(d, 60_000)
    await sleep(1_100)
    const second = (await store.heartbeat(c, 1_000)).gone
    expect(second).toContain(a)
    expect(second).not.toContain(d)
    expect(await store.gone([a, d])).toEqual([a])
    await sleep(1_100)
    expect((await store.heartbeat(b, 60_000)).gone).not.toContain(a)
    expect((await store.heartbeat(c, 60_000)).gone).not.toContain(a)
  })

  it('a heartbeat counts the other instances that beat in time: none when alone, not one that left', async () => {
    // a store of its own: the other cases' instances are not listed
    const own = await make()
    try {
      expect(await own.store.heartbeat('x', 60_000)).toEqual({ gone: [], others: 0 })
      expect(await own.store.heartbeat('y', 60_000)).toEqual({ gone: [], others: 1 })
      expect(await own.store.heartbeat('x', 60_000)).toEqual({ gone: [], others: 1 })
      await own.store.leave('y')
      expect(await own.store.heartbeat('x', 60_000)).toEqual({ gone: ['y'], others: 0 })
      expect(await own.store.heartbeat('x', 60_000)).toEqual({ gone: [], others: 0 })
    } finally {
      await own.cleanup()
    }
  })

  it('remembers applied ids as short marks, and still knows ids a session saved whole', () => {
    const id = 'wamid.HBgNNTQ5MTEwMDAwMDAwMRUCABIYFjNFQjBCNUQ2MjhGRjNBMjJGQjc3QzEA'
    expect(appliedMark(id)).toMatch(/^[0-9a-f]{12}$/)
    expect(appliedMark(appliedMark(id))).toBe(appliedMark(id))
    expect(isApplied([appliedMark(id)], id)).toBe(true)
    expect(isApplied([id], id)).toBe(true)
    expect(isApplied([appliedMark(id)], `${id}2`)).toBe(false)
  })

  it('remembers a link code result for the phone', async () => {
    const phone = newPhone()
    expect(await store.linkResult(phone, 'ABC')).toBeUndefined()
    await store.putLinkResult(phone, 'ABC', '{"type":"LINK_OK"}')
    expect(await store.linkResult(phone, 'ABC')).toBe('{"type":"LINK_OK"}')
    expect(await store.linkResult(newPhone(), 'ABC')).toBeUndefined()
    await store.putLinkResult(phone, 'DEF', '{"type":"LINK_OK"}')
    // the turn that consumed the codes drops their results with its commit
    await store.accept([{ phone, id: `${phone}-1`, body: 'LINK' }])
    const work = await take(phone)
    expect(await store.commitTurn(phone, 'w1', { ...commitOf(work, 'doc'), linkCodes: ['ABC', 'DEF', 'GHI'] }, 10_000)).toEqual({ kind: 'done' })
    expect(await store.linkResult(phone, 'ABC')).toBeUndefined()
    expect(await store.linkResult(phone, 'DEF')).toBeUndefined()
  })

  it('records a turn in the conversation history with its commit, and nothing with a commit that lost its lease', async () => {
    const phone = newPhone()
    const said = (id: string, at: number): HistoryMessage[] => [
      { id, at, direction: 'in', author: 'member', type: 'text', text: 'hola' },
      { id: `${id}:0`, at: at + 5, direction: 'out', author: 'bot', type: 'text', text: '¡Hola!' },
    ]
    const at = Date.now()
    await store.accept([{ phone, id: 'm1', body: 'one' }, { phone, id: 'm2', body: 'two' }])
    const first = await take(phone, 'w1', 60)
    await sleep(120)
    // w1's lease ran out and w2 took the message: w1's commit records nothing
    const again = await take(phone, 'w2')
    expect(await store.commitTurn(phone, 'w1', { ...commitOf(first, 'doc-1'), record: { tenantId: 'club-norte', messages: said('m1', at) } }, 10_000)).toEqual(
      { kind: 'lost' }
    )
    expect(await inbox.history('club-norte', phone, 0, 10)).toEqual([])
    const next = await store.commitTurn(phone, 'w2', { ...commitOf(again, 'doc-1'), record: { tenantId: 'club-norte', messages: said('m1', at) } }, 10_000)
    if (next.kind !== 'more') throw new Error(`expected more, got ${next.kind}`)
    await store.commitTurn(phone, 'w2', { ...commitOf(next.work, 'doc-2'), record: { tenantId: 'club-norte', messages: said('m2', at + 10) } }, 10_000)
    expect(await inbox.history('club-norte', phone, 0, 10)).toEqual([...said('m1', at), ...said('m2', at + 10)].reverse())
    expect(await inbox.conversation('club-norte', phone)).toMatchObject({
      tenantId: 'club-norte', unread: 2, lastAt: at + 15, lastInboundAt: at + 10, last: { id: 'm2:0' }
    })
  })
})
