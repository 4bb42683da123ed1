import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isApplied, type SendWork, type TurnWork } from '../../src/chat/store/index.ts'
import { MemoryChatStore } from '../../src/chat/store/memory.ts'

// The pipeline's protocol as a model: two turn workers and two senders step through the store's operations in
// any interleaving, with crashes at every point (before the commit, after it, after a send, before its ack),
// failed turns handed back, and the clock jumping past leases. Whatever the sequence, once everything drains:
// every accepted message was applied exactly once, in order, and the provider saw every reply, in order, with
// a repeat only ever of a reply already seen (the same id: recognisable).

const LEASE = 1_000
const PHONES = ['5491100000001', '5491100000002']

type Action =
  | { t: 'accept', phone: number }
  | { t: 'take', w: number, phone: number }
  | { t: 'commit', w: number, lease: boolean }
  | { t: 'fail', w: number }
  | { t: 'crashWorker', w: number }
  | { t: 'takeSend', s: number, phone: number }
  | { t: 'deliver', s: number }
  | { t: 'ack', s: number }
  | { t: 'crashSender', s: number }
  | { t: 'tick', ms: number }

const two = fc.integer({ min: 0, max: 1 })
// most actions on one phone, so that workers and senders collide on it
const phoneArb = fc.constantFrom(0, 0, 0, 1)
const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: phoneArb.map((phone) => ({ t: 'accept' as const, phone })), weight: 3 },
  { arbitrary: fc.record({ w: two, phone: phoneArb }).map((a) => ({ t: 'take' as const, ...a })), weight: 3 },
  // a commit may lease the outbox it wakes to the sender of the same index (the worker's own instance)
  { arbitrary: fc.record({ w: two, lease: fc.boolean() }).map((a) => ({ t: 'commit' as const, ...a })), weight: 3 },
  { arbitrary: two.map((w) => ({ t: 'fail' as const, w })), weight: 1 },
  { arbitrary: two.map((w) => ({ t: 'crashWorker' as const, w })), weight: 1 },
  { arbitrary: fc.record({ s: two, phone: phoneArb }).map((a) => ({ t: 'takeSend' as const, ...a })), weight: 3 },
  { arbitrary: two.map((s) => ({ t: 'deliver' as const, s })), weight: 3 },
  { arbitrary: two.map((s) => ({ t: 'ack' as const, s })), weight: 3 },
  { arbitrary: two.map((s) => ({ t: 'crashSender' as const, s })), weight: 1 },
  { arbitrary: fc.integer({ min: 0, max: 2 * LEASE }).map((ms) => ({ t: 'tick' as const, ms })), weight: 3 }
)

/** A worker computes its turn as it takes it; the commit is a separate step, so a crash can fall between. */
interface Worker { work?: TurnWork, result?: { doc: string | undefined, applied: string[], replies: string[] } }
interface SenderState { work?: SendWork, delivered?: boolean }

/** The turn: the session is the list of message ids applied; each message says two things. */
function compute (work: TurnWork): NonNullable<Worker['result']> {
  const id = work.message
  if (isApplied(work.session.applied, id)) return { doc: undefined, applied: work.session.applied, replies: [] }
  const applied: string[] = work.session.doc ? JSON.parse(work.session.doc) : []
  return { doc: JSON.stringify([...applied, id]), applied: [id, ...work.session.applied].slice(0, 8), replies: [`${id}:0`, `${id}:1`] }
}

async function run (actions: Action[]): Promise<void> {
  let now = 1_000_000
  const store = new MemoryChatStore(4, () => now)
  const accepted = new Map<string, string[]>(PHONES.map((p) => [p, []]))
  const delivered = new Map<string, string[]>(PHONES.map((p) => [p, []]))
  const workers: Worker[] = [{}, {}]
  const senders: SenderState[] = [{}, {}]
  let seq = 0

  async function step (a: Action): Promise<void> {
    switch (a.t) {
      case 'accept': {
        const phone = PHONES[a.phone] as string
        const id = `m${++seq}`
        await store.accept([{ phone, id, body: id }])
        accepted.get(phone)?.push(id)
        return
      }
      case 'take': {
        if (workers[a.w]?.work) return
        const taken = await store.takeTurn(PHONES[a.phone] as string, `w${a.w}`, LEASE)
        if (taken.kind === 'ok') workers[a.w] = { work: taken.work, result: compute(taken.work) }
        return
      }
      case 'commit': {
        const w = workers[a.w] as Worker
        if (!w.work || !w.result) return
        const sender = a.lease && !senders[a.w]?.work ? `s${a.w}` : undefined
        const next = await store.commitTurn(w.work.phone, `w${a.w}`, { expected: w.work.session.version, message: w.work.message, ...w.result, sender }, LEASE)
        workers[a.w] = next.kind === 'more' ? { work: next.work, result: compute(next.work) } : {}
        if (next.kind !== 'lost' && next.send) senders[a.w] = { work: next.send }
        return
      }
      case 'fail': {
        const w = workers[a.w] as Worker
        if (w.work) await store.release('turn', w.work.phone, `w${a.w}`, 100, true, 'boom')
        workers[a.w] = {}
        return
      }
      case 'crashWorker': workers[a.w] = {}; return
      case 'takeSend': {
        if (senders[a.s]?.work) return
        const taken = await store.takeSend(PHONES[a.phone] as string, `s${a.s}`, LEASE)
        if (taken.kind === 'ok') senders[a.s] = { work: taken.work }
        return
      }
      case 'deliver': {
        const s = senders[a.s] as SenderState
        if (!s.work || s.delivered) return
        delivered.get(s.work.phone)?.push(s.work.entry)
        s.delivered = true
        return
      }
      case 'ack': {
        const s = senders[a.s] as SenderState
        if (!s.work || !s.delivered) return
        const next = await store.sent(s.work.phone, `s${a.s}`, s.work.entry, LEASE)
        senders[a.s] = next.kind === 'more' ? { work: next.work } : {}
        return
      }
      case 'crashSender': senders[a.s] = {}; return
      case 'tick': now += a.ms
    }
  }

  for (const a of actions) await step(a)
  // everyone crashes, then one worker and one sender drain what is left
  workers.fill({})
  senders.fill({})
  now += 10 * LEASE
  for (let round = 0; round < 1_000 && (await store.pending(PHONES[0] as string) || await store.pending(PHONES[1] as string)); round++) {
    now += 200
    for (const phone of [0, 1]) {
      await step({ t: 'take', w: 0, phone })
      for (let i = 0; i < 50 && workers[0]?.work; i++) {
        await step({ t: 'commit', w: 0, lease: false })
      }
      await step({ t: 'takeSend', s: 0, phone })
      for (let i = 0; i < 200 && senders[0]?.work; i++) {
        await step({ t: 'deliver', s: 0 })
        await step({ t: 'ack', s: 0 })
      }
    }
  }

  for (const phone of PHONES) {
    const ids = accepted.get(phone) ?? []
    // applied exactly once each, in arrival order
    const taken = await store.takeTurn(phone, 'check', LEASE)
    expect(taken.kind).toBe('empty')
    const session = (await (async () => {
      await store.accept([{ phone, id: `probe-${phone}`, body: `probe-${phone}` }])
      const probe = await store.takeTurn(phone, 'check', LEASE)
      return probe.kind === 'ok' ? probe.work.session : undefined
    })())
    expect(session?.doc ? JSON.parse(session.doc) : []).toEqual(ids)
    // every reply seen, in order; a repeat is only ever of a reply already seen
    const expected = ids.flatMap((id) => [`${id}:0`, `${id}:1`])
    const seen: string[] = []
    for (const entry of delivered.get(phone) ?? []) {
      if (seen.includes(entry)) continue
      expect(entry).toBe(expected[seen.length])
      seen.push(entry)
    }
    expect(seen).toEqual(expected)
  }
}

describe('chat pipeline protocol (model, crash points as events)', () => {
  it('a worker that lost its lease cannot commit over the turns that ran since', async () => {
    await run([
      { t: 'accept', phone: 0 }, { t: 'accept', phone: 0 }, { t: 'accept', phone: 0 },
      { t: 'take', w: 0, phone: 0 }, { t: 'tick', ms: 2 * LEASE },
      { t: 'take', w: 1, phone: 0 }, { t: 'commit', w: 1, lease: true }, { t: 'commit', w: 1, lease: false },
      { t: 'commit', w: 0, lease: true },
    ])
  })

  it('applies every message once and delivers every reply in order, whatever crashes and when', async () => {
    await fc.assert(fc.asyncProperty(fc.array(action, { minLength: 10, maxLength: 150, size: 'max' }), async (actions) => { await run(actions) }), {
      numRuns: 500
    })
  })
})
