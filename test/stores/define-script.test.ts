import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import { Command, Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { deleteKeysWithPrefix, startRedisServer, type RedisServer } from '../../scripts/lib/redis-server.ts'
import { createRedis } from '../../src/plugins/redis.ts'
import { defineScript, scriptCall, type ScriptArg } from '../../src/stores/define-script.ts'
import { testRedisCluster } from '../helper.ts'

// The service's clients send each tick's commands in one batch (src/stores/redis-client.ts BatchingRedis): a script's
// first call on a client, in the same tick as other commands, goes in the same batch and each caller gets its own answer.
const append = defineScript<[suffix: string], string>({
  name: 'testDefineScriptAppend',
  keys: 1,
  lua: "return redis.call('APPEND', KEYS[1], ARGV[1]) .. ':' .. redis.call('GET', KEYS[1])",
  decode: (raw) => String(raw),
})

// Lua no Redis has seen yet (a fresh comment each run): its first call on each node is answered NOSCRIPT.
const unseen = `-- ${randomUUID()}\n`

const move = defineScript<[amount: number], [number, number]>({
  name: 'testDefineScriptMove',
  keys: 2,
  lua: `${unseen}return { redis.call('DECRBY', KEYS[1], ARGV[1]), redis.call('INCRBY', KEYS[2], ARGV[1]) }`,
  decode: (raw) => raw as [number, number],
})

const count = defineScript<[], number>({
  name: 'testDefineScriptCount',
  keys: 'list',
  lua: `${unseen}return #KEYS`,
  decode: (raw) => Number(raw),
})

const store = defineScript<[text: string, bytes: Buffer, n: number], [string, string]>({
  name: 'testDefineScriptStore',
  keys: 2,
  lua: "redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[3]) redis.call('SET', KEYS[2], ARGV[2]) return { KEYS[1], KEYS[2] }",
  decode: (raw) => raw as [string, string],
})

describe('a script call', () => {
  // what the client's own `redis.evalsha(sha, keys.length, ...keys, ...args)` would have written, and its keys
  const asIoredis = (name: 'eval' | 'evalsha', head: string, prefix: string, keys: string[], args: ScriptArg[]): Command =>
    new Command(name, [head, keys.length, ...keys, ...args], { keyPrefix: prefix, replyEncoding: 'utf8' })
  const bytes = (w: string | Buffer): Buffer => typeof w === 'string' ? Buffer.from(w) : w

  it('writes the bytes and names the keys the client\'s own command would, whatever the keys and arguments', () => {
    const arg = fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.double({ noNaN: true }), fc.uint8Array().map((a) => Buffer.from(a)))
    fc.assert(fc.property(fc.constantFrom('eval', 'evalsha'), fc.string(), fc.constantFrom('', 'club:', 'ñ:'), fc.array(fc.string({ unit: 'binary' })),
      fc.array(arg), (name, head, prefix, keys, args) => {
        const ours = scriptCall(name, head, prefix, keys, args)
        const theirs = asIoredis(name, head, prefix, keys, args)
        expect(bytes(ours.toWritable()).equals(bytes(theirs.toWritable({})))).toBe(true)
        expect(ours.getKeys()).toEqual(theirs.getKeys())
      }), { numRuns: 300 })
  })
})

describe('defineScript on a batching client', () => {
  const prefix = `test:${randomUUID()}:`
  const redis = createRedis(inject('redisUrl'), prefix)
  afterAll(async () => {
    await deleteKeysWithPrefix(inject('redisUrl'), prefix)
    await redis.quit()
  })

  it('runs its first call in a batch with other commands', async () => {
    await redis.connect()
    const [set, appended, got] = await Promise.all([redis.set('k', 'a'), append(redis, ['k'], 'b'), redis.get('k')])
    expect([set, appended, got]).toEqual(['OK', '2:ab', 'ab'])
  })

  it('sends text, bytes and numbers as they are, the keys under the client\'s prefix', async () => {
    const bytes = Buffer.from([0, 255, 13, 10, 0xc3, 0x28, 36])
    expect(await store(redis, ['{s}t', '{s}b'], 'ñandú ☃ \r\n', bytes, 12.5)).toEqual([`${prefix}{s}t`, `${prefix}{s}b`])
    expect(await redis.get('{s}t')).toBe('ñandú ☃ \r\n:12.5')
    expect(await redis.getBuffer('{s}b')).toEqual(bytes)
  })

  it('refuses a call with another number of keys before Redis, and sends a list script its keys count', async () => {
    await expect(move(redis, ['{m}a'], 1)).rejects.toThrow('script testDefineScriptMove takes 2 keys, was given 1')
    expect(await count(redis, ['{c}a', '{c}b', '{c}c'])).toBe(3)
  })

  it('refuses a second script of the same name', () => {
    expect(() => defineScript({ name: 'testDefineScriptAppend', keys: 0, lua: 'return 1' })).toThrow('defined twice')
  })
})

describe('defineScript after Redis forgot its scripts (SCRIPT FLUSH, a restart, a failover)', () => {
  let server: RedisServer
  let redis: Redis
  let admin: Redis
  beforeAll(async () => {
    server = await startRedisServer()
    redis = createRedis(server.url, 'flushed:')
    admin = new Redis(server.url)
    await redis.connect()
  })
  afterAll(async () => {
    await redis.quit()
    admin.disconnect()
    await server.stop()
  })

  /** Calls of EVALSHA (refused ones included) and EVAL since the last reset, from INFO commandstats. */
  const calls = async (): Promise<{ evalsha: number, eval: number }> => {
    const stats = await admin.info('commandstats')
    const of = (name: string): number => Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0)
    return { evalsha: of('evalsha'), eval: of('eval') }
  }

  it('answers the call after a flush, loading the script again with one EVAL, then runs it by its sha', async () => {
    expect(await append(redis, ['k'], 'a')).toBe('1:a')
    await admin.script('FLUSH')
    await admin.config('RESETSTAT')
    const [first, second] = await Promise.all([append(redis, ['k'], 'b'), redis.get('k')])
    expect([first, second]).toEqual(['2:ab', 'a'])
    expect(await calls()).toEqual({ evalsha: 1, eval: 1 })
    expect(await append(redis, ['k'], 'c')).toBe('3:abc')
    expect(await calls()).toEqual({ evalsha: 2, eval: 1 })
  })

  it('fails a script whose Lua fails with Redis\'s error, not a second try', async () => {
    const broken = defineScript<[], unknown>({ name: 'testDefineScriptBroken', keys: 1, lua: "return redis.call('INCR', KEYS[1])" })
    await admin.set('flushed:text', 'not a number')
    await admin.config('RESETSTAT')
    await expect(broken(redis, ['text'])).rejects.toThrow(/not an integer/)
    await expect(broken(redis, ['text'])).rejects.toThrow(/not an integer/)
    expect(await calls()).toEqual({ evalsha: 1, eval: 1 })
  })
})

describe('defineScript on a Redis Cluster', () => {
  let cluster: Awaited<ReturnType<typeof testRedisCluster>>
  beforeAll(async () => { cluster = await testRedisCluster() })
  afterAll(async () => { await cluster.cleanup() })

  it('routes each call by its keys to the master of their slot, under the key prefix, loading the script where it was missing', async () => {
    const tags = Array.from({ length: 12 }, (_, i) => `{t${i}}`)
    const moved = await Promise.all(tags.map(async (tag) => await move(cluster.redis, [`${tag}from`, `${tag}to`], 3)))
    expect(moved).toEqual(tags.map(() => [-3, 3]))
    // each pair sits on exactly one master, under the client's key prefix
    const masters = cluster.redis.nodes('master')
    for (const tag of tags) {
      const slot = Number(await cluster.redis.cluster('KEYSLOT', tag))
      const held = await Promise.all(masters.map(async (node) => Number(await node.cluster('COUNTKEYSINSLOT', slot))))
      expect(held.sort()).toEqual([...masters.slice(1).map(() => 0), 2])
      expect(await cluster.redis.mget(`${tag}from`, `${tag}to`)).toEqual(['-3', '3'])
    }
    expect(new Set(await Promise.all(tags.map(async (tag) => await cluster.redis.cluster('KEYSLOT', tag)))).size).toBeGreaterThan(1)
    expect(await count(cluster.redis, ['{c}a', '{c}b'])).toBe(2)
  })
})
