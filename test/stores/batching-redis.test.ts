import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import fc from 'fast-check'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { deleteKeysWithPrefix, startRedisServer, type RedisServer } from '../../scripts/lib/redis-server.ts'
import { createRedis } from '../../src/plugins/redis.ts'
import { defineScript } from '../../src/stores/define-script.ts'

// The service's client (src/stores/redis-client.ts BatchingRedis): the commands issued in one turn of the event loop
// go out in one socket write, in the order issued, one batch unanswered at a time.

const appendScript = defineScript<[token: string], number>({
  name: 'testBatchingAppend',
  keys: 1,
  lua: "return redis.call('APPEND', KEYS[1], ARGV[1])",
  decode: (raw) => Number(raw),
})

/** Holds Redis about `ms` (a script keeps the server busy: whatever is sent meanwhile waits in its socket). */
const busy = defineScript<[ms: number], number>({
  name: 'testBatchingBusy',
  keys: 1,
  lua: `local function ms () local t = redis.call('TIME') return t[1] * 1000 + t[2] / 1000 end
local start = ms()
while ms() - start < tonumber(ARGV[1]) do end
return redis.call('INCR', KEYS[1])`,
  decode: (raw) => Number(raw),
})

/** Counts the writes the socket hands to the kernel (a corked socket hands its whole buffer to one _writev). */
function countWrites (socket: Socket): { count: () => number } {
  let n = 0
  const s = socket as unknown as { _write: (...a: unknown[]) => void, _writev: (...a: unknown[]) => void }
  const write = s._write.bind(socket)
  const writev = s._writev.bind(socket)
  s._write = (...a) => { n++; write(...a) }
  s._writev = (...a) => { n++; writev(...a) }
  return { count: () => n }
}

const tick = async (): Promise<void> => { await new Promise((resolve) => setImmediate(resolve)) }

describe('BatchingRedis', () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    // a server of its own: the busy script holds it
    server = await startRedisServer()
    redis = createRedis(server.url, 'batch:')
    await redis.connect()
  })
  afterAll(async () => {
    await redis.quit()
    await server.stop()
  })

  it('sends the commands of one tick in one write, in order, each caller getting its own answer', async () => {
    const writes = countWrites(redis.stream as Socket)
    const answers = await Promise.all([
      redis.set('a', 'x'),
      appendScript(redis, ['a'], 'y'),
      redis.multi().append('a', 'z').get('a').exec(),
      redis.get('a'),
      ...Array.from({ length: 40 }, async (_, i) => await redis.incr(`n${i % 4}`)),
    ])
    expect(answers.slice(0, 4)).toEqual(['OK', 2, [[null, 3], [null, 'xyz']], 'xyz'])
    expect(answers.slice(4)).toEqual(Array.from({ length: 40 }, (_, i) => Math.floor(i / 4) + 1))
    expect(writes.count()).toBe(1)
  })

  it('holds what later ticks issue until the batch before is answered, then sends it in one write', async () => {
    const writes = countWrites(redis.stream as Socket)
    const slow = busy(redis, ['busy'], 100)
    const later: Array<Promise<number>> = []
    for (let i = 0; i < 5; i++) {
      await tick()
      later.push(appendScript(redis, ['held'], String(i)))
    }
    expect(await slow).toBe(1)
    expect(await Promise.all(later)).toEqual([1, 2, 3, 4, 5])
    // the busy script's batch, then the five appends together
    expect(writes.count()).toBe(2)
  })

  it('sends a batch whose socket was lost before it went on the next connection, once each, in order', async () => {
    const lost = createRedis(server.url, `lost:${randomUUID()}:`)
    await lost.connect()
    const reconnected = new Promise((resolve) => lost.once('ready', resolve))
    const sent = Array.from({ length: 6 }, async (_, i) => await appendScript(lost, ['k'], String(i)))
    // before the batch is flushed: nothing of it reached Redis
    lost.stream.destroy()
    await reconnected
    expect(await Promise.all(sent)).toEqual([1, 2, 3, 4, 5, 6])
    expect(await lost.get('k')).toBe('012345')
    await lost.quit()
  })
})

describe('BatchingRedis runs every command in the order issued, whatever ticks and awaits come between', () => {
  const prefix = `test:${randomUUID()}:`
  const redis = createRedis(inject('redisUrl'), prefix)
  beforeAll(async () => { await redis.connect() })
  afterAll(async () => {
    await deleteKeysWithPrefix(inject('redisUrl'), prefix)
    await redis.quit()
  })

  // a step issues commands (an APPEND, the same through a script, or two in a MULTI) to one of three keys, then lets
  // a tick or a microtask pass, or awaits one of the commands issued so far
  const step = fc.record({
    commands: fc.array(fc.record({ kind: fc.constantFrom('append', 'script', 'multi'), key: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 4 }),
    then: fc.constantFrom('tick', 'microtask', 'await', 'nothing'),
  })

  it('answers as Redis running them one by one in that order would', async () => {
    let run = 0
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
      const keyOf = (k: number): string => `r${run}:${k}`
      run++
      const model = ['', '', '']
      const expected: unknown[] = []
      const answers: Array<Promise<unknown>> = []
      let token = 0
      for (const s of steps) {
        for (const c of s.commands) {
          const a = `${token++};`
          if (c.kind === 'multi') {
            const b = `${token++};`
            model[c.key] += a
            const first = (model[c.key] as string).length
            model[c.key] += b
            expected.push([[null, first], [null, (model[c.key] as string).length]])
            answers.push(redis.multi().append(keyOf(c.key), a).append(keyOf(c.key), b).exec())
          } else {
            model[c.key] += a
            expected.push((model[c.key] as string).length)
            answers.push(c.kind === 'script' ? appendScript(redis, [keyOf(c.key)], a) : redis.append(keyOf(c.key), a))
          }
        }
        if (s.then === 'tick') await tick()
        if (s.then === 'microtask') await Promise.resolve()
        if (s.then === 'await') await answers[answers.length - 1]
      }
      expect(await Promise.all(answers)).toEqual(expected)
      expect(await redis.mget(keyOf(0), keyOf(1), keyOf(2))).toEqual(model.map((v) => v === '' ? null : v))
    }), { numRuns: 60 })
  })
})
