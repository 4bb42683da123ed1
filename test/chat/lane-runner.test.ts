import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LaneRunner } from '../../src/chat/lane-runner.ts'
import { encodeMail } from '../../src/chat/mail.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import type { TurnWork } from '../../src/chat/store/index.ts'
import { testRedis } from '../helper.ts'
import { newPhone } from './support.ts'

// One master of a cluster down: its phones' store commands wait out the client's retries and then fail. Here the
// phones of the "down master" are a real store's phones whose take hangs until a gate opens (and fails the first
// time), the others' work runs on the real store untouched.

describe('lane runner: phones that cannot reach the store', () => {
  let t: Awaited<ReturnType<typeof testRedis>>
  beforeAll(async () => { t = await testRedis() })
  afterAll(async () => { await t.cleanup() })

  it('holds at most one slot between them while retried: the other phones are all served meanwhile, then they are too', async () => {
    const store = new RedisChatStore(t.redis, 16)
    const owner = `runner-${randomUUID()}`
    const down = [newPhone(), newPhone()]
    const healthy = Array.from({ length: 6 }, newPhone)
    await store.accept([...down, ...healthy].map((phone) => {
      const id = `wamid.${randomUUID()}`
      return { phone, id, body: encodeMail({ id, phone, receivedAt: Date.now(), input: { kind: 'text', text: 'hola' } }) }
    }))

    const events = new EventEmitter()
    const until = async (done: () => boolean): Promise<void> => {
      while (!done()) await new Promise((resolve) => events.once('tick', resolve))
    }
    const tries = new Map<string, number>()
    const served: string[] = []
    let downInHand = 0
    let mostDownInHand = 0
    let open!: () => void
    const gate = new Promise<void>((resolve) => { open = resolve })
    const tick = (): void => { setImmediate(() => events.emit('tick')) }

    const runner = new LaneRunner<TurnWork>({
      lane: 'turn',
      store,
      owner,
      leaseMs: 30_000,
      concurrency: 2,
      take: async (phone) => {
        if (!down.includes(phone)) return await store.takeTurn(phone, owner, 30_000)
        const n = (tries.get(phone) ?? 0) + 1
        tries.set(phone, n)
        tick()
        // the first try fails at once, the next ones wait for the master to come back
        if (n === 1) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:7001'), { code: 'ECONNREFUSED' })
        downInHand++
        mostDownInHand = Math.max(mostDownInHand, downInHand)
        try {
          await gate
          return await store.takeTurn(phone, owner, 30_000)
        } finally {
          downInHand--
        }
      },
      step: async (work) => {
        served.push(work.phone)
        tick()
        return await store.commitTurn(
          work.phone, owner, { expected: work.session.version, doc: undefined, applied: [], message: work.message, replies: [] }, 30_000
        )
      },
      handedBack: () => {},
      log: pino({ level: 'silent' }),
    })
    runner.start()
    try {
      runner.offer(down)
      // one of them is retried (and waits for its master) ...
      await until(() => downInHand === 1)
      // ... when the others' work arrives, with the other one's again
      runner.offer([...down, ...healthy])
      await until(() => healthy.every((phone) => served.includes(phone)))
      expect(served.filter((phone) => down.includes(phone))).toEqual([])
      expect(mostDownInHand).toBe(1)

      open()
      await until(() => down.every((phone) => served.includes(phone)))
      expect([...served].sort()).toEqual([...down, ...healthy].sort())
      for (const phone of [...down, ...healthy]) expect(await store.pending(phone)).toBe(false)
    } finally {
      await runner.stop(1_000)
    }
  })
})
