import { randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LaneRunner } from '../../src/chat/lane-runner.ts'
import { encodeMail } from '../../src/chat/mail.ts'
import type { Transport } from '../../src/chat/outbound/transport.ts'
import { Sender } from '../../src/chat/sender.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import type { TurnWork } from '../../src/chat/store/index.ts'
import { testRedis } from '../helper.ts'
import { newPhone, phoneWithReplies, senderOptions } from './support.ts'

// The send is fenced by the lease like the commit: an instance that lost a phone (paused past its lease, and
// another instance took it) sends nothing more for it. The real-process case (SIGSTOP) is in test/chat-faults.

const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

async function until (done: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!done() && Date.now() < deadline) await sleep(10)
}

describe('the send lease fences the send', () => {
  let t: Awaited<ReturnType<typeof testRedis>>
  beforeAll(async () => { t = await testRedis() })
  afterAll(async () => { await t.cleanup() })

  /** A phone with one reply waiting in its outbox. */
  const phoneWithReply = async (store: RedisChatStore): Promise<string> => (await phoneWithReplies(store)).phone

  function sender (store: RedisChatStore, owner: string, delivered: string[], logged: string[], leaseMs = 30_000, transport?: Transport): Sender {
    const lines = new Writable({ write (chunk, _enc, done) { logged.push(String(chunk)); done() } })
    transport ??= { deliver: async (entry) => { delivered.push(`${owner} ${entry.id}`); return { kind: 'ok' } } }
    return new Sender(store, transport, senderOptions({ owner, leaseMs, log: pino({ level: 'info' }, lines) }))
  }

  it('a send whose lease ran out and was taken by another owner is not delivered; the new owner delivers it once', async () => {
    const store = new RedisChatStore(t.redis, 16)
    const phone = await phoneWithReply(store)
    // A takes the phone's outbox and is paused past its short lease; B takes it meanwhile
    const mine = await store.takeSend(phone, 'A', 100)
    if (mine.kind !== 'ok') throw new Error(`A did not take the outbox: ${JSON.stringify(mine)}`)
    await sleep(150)
    const theirs = await store.takeSend(phone, 'B', 30_000)
    expect(theirs.kind).toBe('ok')

    // A resumes with the work it had in hand
    const delivered: string[] = []
    const logged: string[] = []
    const a = sender(store, 'A', delivered, logged)
    a.runner.start()
    a.handOver(phone, mine.work)
    await until(() => delivered.length > 0 || logged.some((line) => line.includes('lease-lost')))
    await a.runner.stop(1_000)
    expect(delivered).toEqual([])
    expect(logged.some((line) => line.includes('lease-lost'))).toBe(true)

    // B's send goes, once, and empties the outbox
    const b = sender(store, 'B', delivered, [])
    b.runner.start()
    if (theirs.kind === 'ok') b.handOver(phone, theirs.work)
    await until(() => delivered.length > 0)
    await sleep(100)
    await b.runner.stop(1_000)
    expect(delivered.map((line) => line.split(' ')[0])).toEqual(['B'])
    expect(await store.pending(phone)).toBe(false)
  })

  it('a send leased a moment ago goes without renewing its lease; one leased more than a quarter of a lease ago renews it first', async () => {
    const renewals: string[] = []
    const store = new (class extends RedisChatStore {
      override async renew (lane: 'turn' | 'send', phone: string, owner: string, leaseMs: number) {
        renewals.push(phone)
        return await super.renew(lane, phone, owner, leaseMs)
      }
    })(t.redis, 16)
    const leaseMs = 2_000
    // what each send saw renewed before it was delivered (the lane's own renewals come a third of a lease later)
    const seen: string[][] = []
    const delivered: string[] = []
    const transport: Transport = { deliver: async (entry) => { seen.push([...renewals]); delivered.push(entry.id); return { kind: 'ok' } } }
    const a = sender(store, 'A', delivered, [], leaseMs, transport)
    a.runner.start()
    const fresh = await phoneWithReply(store)
    const old = await phoneWithReply(store)
    try {
      const askedFresh = performance.now()
      const taken = await store.takeSend(fresh, 'A', leaseMs)
      if (taken.kind !== 'ok') throw new Error('the outbox was not taken')
      a.handOver(fresh, taken.work, askedFresh)
      await until(() => delivered.length === 1)
      const askedOld = performance.now()
      const takenOld = await store.takeSend(old, 'A', leaseMs)
      if (takenOld.kind !== 'ok') throw new Error('the outbox was not taken')
      await sleep(leaseMs / 4 + 50)
      a.handOver(old, takenOld.work, askedOld)
      await until(() => delivered.length === 2)
    } finally {
      await a.runner.stop(1_000)
    }
    expect(seen).toEqual([[], [old]])
    expect(await store.pending(fresh)).toBe(false)
    expect(await store.pending(old)).toBe(false)
  })

  it('a send whose lease time passes before its request is written is not written; the phone goes back with no attempt counted', async () => {
    const store = new RedisChatStore(t.redis, 16)
    const phone = await phoneWithReply(store)
    const leaseMs = 400
    const delivered: string[] = []
    const logged: string[] = []
    let calls = 0
    // the transport's own wait (a connect, a pool, a pause) outlasts the lease the first time only
    const transport: Transport = {
      deliver: async (entry, _signal, fence) => {
        if (calls++ === 0) await sleep(leaseMs)
        if (fence && !fence()) return { kind: 'fenced' }
        delivered.push(entry.id)
        return { kind: 'ok' }
      },
    }
    const a = sender(store, 'A', delivered, logged, leaseMs, transport)
    a.runner.start()
    try {
      a.runner.offer([phone])
      await until(() => delivered.length > 0)
      await sleep(100)
    } finally {
      await a.runner.stop(1_000)
    }
    expect(calls).toBe(2)
    expect(delivered.length).toBe(1)
    expect(logged.some((line) => line.includes('the lease ran out before the request was written'))).toBe(true)
    expect(logged.some((line) => line.includes('"outcome":"retry"'))).toBe(false)
    expect(await store.pending(phone)).toBe(false)
  })

  it('a renewal that answers lost stops the lane\'s work on the phone', async () => {
    const store = new RedisChatStore(t.redis, 16)
    const phone = newPhone()
    const id = `wamid.${randomUUID()}`
    await store.accept([{ phone, id, body: encodeMail({ id, phone, receivedAt: Date.now(), input: { kind: 'text', text: 'hola' } }) }])
    const leaseMs = 150
    let steps = 0
    const runner = new LaneRunner<TurnWork>({
      lane: 'turn',
      store,
      owner: 'A',
      leaseMs,
      concurrency: 1,
      take: async (p) => await store.takeTurn(p, 'A', leaseMs),
      // work that never ends on its own, each step shorter than the lease
      step: async (work) => { steps++; await sleep(leaseMs / 3); return { kind: 'more', work } },
      handedBack: () => {},
      log: pino({ level: 'silent' }),
    })
    runner.start()
    try {
      runner.offer([phone])
      await until(() => steps >= 3)
      // another owner has the phone now (as after A was paused past its lease)
      await store.release('turn', phone, 'A', 0, false)
      expect((await store.takeTurn(phone, 'B', 30_000)).kind).toBe('ok')
      await sleep(leaseMs)
      const after = steps
      await sleep(leaseMs * 2)
      expect(steps).toBe(after)
    } finally {
      await runner.stop(1_000)
    }
  })
})
