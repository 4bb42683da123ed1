import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import type { Command, Redis } from 'ioredis'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MemoryLinkCodeStore, RedisLinkCodeStore, type LinkCodeStore } from '../../../src/chat/linking/link-code-store.ts'
import { keys } from '../../../src/stores/keys.ts'
import { MemoryLinkedAccountStore, RedisLinkedAccountStore } from '../../../src/chat/linking/linked-account-store.ts'
import { MemoryLoginFormInvites, RedisLoginFormInvites } from '../../../src/chat/linking/login-form-invites.ts'
import { MemoryLoginAttemptLimiter, RedisLoginAttemptLimiter, type LoginAttemptLimiter } from '../../../src/chat/linking/login-attempts.ts'
import type { LinkedAccount, LinkedAccountStore, LoginFormInvites } from '../../../src/chat/linking/types.ts'
import type { LinkRecord } from '../../../src/chat/linking/link-record.ts'
import { signAccessToken } from '../../../src/auth/tokens.ts'
import type { RedisClient } from '../../../src/stores/redis-client.ts'
import { testRedis } from '../../helper.ts'

const TTL = 100
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

interface Backend {
  linkCodes: (ttlMs: number) => LinkCodeStore
  accounts: () => LinkedAccountStore
  invites: (ttlMs: number) => LoginFormInvites
  limiter: (limit: number, windowMs: number) => LoginAttemptLimiter
  /** Lets `ms` pass: a fake clock on memory, real time on Redis (whose TTLs are its own). */
  advance: (ms: number) => Promise<void>
}

let redis: Redis
let cleanup: () => Promise<void>
beforeAll(async () => { ({ redis, cleanup } = await testRedis()) })
afterAll(async () => { await cleanup() })

let clock = 1_700_000_000_000
const now = (): number => clock
const backends: Record<'memory' | 'redis', () => Backend> = {
  memory: () => ({
    linkCodes: (ttlMs) => new MemoryLinkCodeStore({ ttlMs, now }),
    accounts: () => new MemoryLinkedAccountStore(),
    invites: (ttlMs) => new MemoryLoginFormInvites({ ttlMs, now }),
    limiter: (limit, windowMs) => new MemoryLoginAttemptLimiter({ limit, windowMs, now }),
    advance: async (ms) => { clock += ms },
  }),
  redis: () => ({
    linkCodes: (ttlMs) => new RedisLinkCodeStore(redis, { ttlMs }),
    accounts: () => new RedisLinkedAccountStore(redis),
    invites: (ttlMs) => new RedisLoginFormInvites(redis, { ttlMs }),
    limiter: (limit, windowMs) => new RedisLoginAttemptLimiter(redis, { limit, windowMs }),
    advance: sleep,
  }),
}

const record = (): LinkRecord => ({
  customerId: 'cus_ana', tenantId: 'club-norte', tenantName: 'Club Norte', email: 'ana@example.com', name: 'Ana Pereyra', token: 'jwt.value.here'
})
const account = (tenantId: string, extra: Partial<LinkedAccount> = {}): LinkedAccount => ({
  tenantId, tenantName: tenantId, customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', role: 'member', token: 't', linkedAt: 1, expiresAt: 2, ...extra,
})
const phone = (): string => `54911${Math.floor(Math.random() * 1e8).toString().padStart(8, '0')}`

describe.each(['memory', 'redis'] as const)('chat linking stores (%s)', (kind) => {
  let b: Backend
  beforeEach(() => { b = backends[kind]() })

  describe('link codes', () => {
    it('a code is consumed once', async () => {
      const store = b.linkCodes(60_000)
      const code = randomUUID()
      await store.create(code, record())
      expect(await store.consume(code)).toEqual(record())
      expect(await store.consume(code)).toBeUndefined()
    })

    it('an unknown code is undefined', async () => {
      expect(await b.linkCodes(60_000).consume(randomUUID())).toBeUndefined()
    })

    it('a code expires after its TTL', async () => {
      const store = b.linkCodes(TTL)
      const code = randomUUID()
      await store.create(code, record())
      await b.advance(TTL + 50)
      expect(await store.consume(code)).toBeUndefined()
    })

    it('concurrent consumers: exactly one gets the record', async () => {
      const store = b.linkCodes(60_000)
      const code = randomUUID()
      await store.create(code, record())
      const results = await Promise.all(Array.from({ length: 20 }, async () => await store.consume(code)))
      expect(results.filter(Boolean)).toHaveLength(1)
    })
  })

  describe('linked accounts', () => {
    it('lists the clubs of a phone, by tenant id; putting a club again replaces it', async () => {
      const store = b.accounts()
      const p = phone()
      expect(await store.list(p)).toEqual([])
      await store.put(p, account('club-sur'))
      await store.put(p, account('club-norte'))
      await store.put(p, account('club-norte', { name: 'Ana P', expiresAt: 99 }))
      const listed = await store.list(p)
      expect(listed.map((a) => a.tenantId)).toEqual(['club-norte', 'club-sur'])
      expect(listed[0]).toEqual(account('club-norte', { name: 'Ana P', expiresAt: 99 }))
      expect(await store.list(phone())).toEqual([])
    })

    it('removes one club and leaves the others', async () => {
      const store = b.accounts()
      const p = phone()
      await store.put(p, account('club-norte'))
      await store.put(p, account('club-sur'))
      await store.remove(p, 'club-norte')
      expect((await store.list(p)).map((a) => a.tenantId)).toEqual(['club-sur'])
      await store.remove(p, 'club-sur')
      await store.remove(p, 'club-sur')
      expect(await store.list(p)).toEqual([])
    })

    it('a returned account is a copy', async () => {
      const store = b.accounts()
      const p = phone()
      await store.put(p, account('club-norte'))
      const [first] = await store.list(p)
      if (first) first.name = 'changed'
      expect((await store.list(p))[0]?.name).toBe('Ana')
    })
  })

  describe('login form invites', () => {
    it('a phone is invited once marked, until the TTL passes', async () => {
      const invites = b.invites(TTL)
      const p = phone()
      expect(await invites.wasSent(p)).toBe(false)
      await invites.markSent(p)
      expect(await invites.wasSent(p)).toBe(true)
      expect(await invites.wasSent(phone())).toBe(false)
      await b.advance(TTL + 50)
      expect(await invites.wasSent(p)).toBe(false)
    })
  })

  describe('login attempts', () => {
    it('allows the limit per phone, then refuses with a retry time, and the window ends', async () => {
      const limiter = b.limiter(3, 200)
      const who = { phone: phone(), email: `${randomUUID()}@example.com` }
      for (let i = 0; i < 3; i++) expect(await limiter.reserve(who)).toEqual({ allowed: true })
      const refused = await limiter.reserve(who)
      expect(refused).toEqual({ allowed: false, retryAfterMs: expect.any(Number) })
      const retryAfterMs = refused.allowed ? 0 : refused.retryAfterMs
      expect(retryAfterMs).toBeGreaterThan(0)
      expect(retryAfterMs).toBeLessThanOrEqual(200)
      await b.advance(250)
      expect(await limiter.reserve(who)).toEqual({ allowed: true })
    })

    it('counts per email across phones (case-insensitive) and per phone across emails', async () => {
      const limiter = b.limiter(2, 60_000)
      const email = `${randomUUID()}@example.com`
      expect((await limiter.reserve({ phone: phone(), email })).allowed).toBe(true)
      expect((await limiter.reserve({ phone: phone(), email: email.toUpperCase() })).allowed).toBe(true)
      expect((await limiter.reserve({ phone: phone(), email })).allowed).toBe(false)
      const p = phone()
      expect((await limiter.reserve({ phone: p, email: `${randomUUID()}@x.test` })).allowed).toBe(true)
      expect((await limiter.reserve({ phone: p, email: `${randomUUID()}@x.test` })).allowed).toBe(true)
      expect((await limiter.reserve({ phone: p, email: `${randomUUID()}@x.test` })).allowed).toBe(false)
    })

    it('a refused attempt is not counted, and clearing resets both counters', async () => {
      const limiter = b.limiter(1, 60_000)
      const who = { phone: phone(), email: `${randomUUID()}@example.com` }
      expect((await limiter.reserve(who)).allowed).toBe(true)
      expect((await limiter.reserve({ phone: who.phone, email: 'other@example.com' })).allowed).toBe(false)
      // other@ was refused before counting, so it still has its attempt
      expect((await limiter.reserve({ phone: phone(), email: 'other@example.com' })).allowed).toBe(true)
      await limiter.clear(who)
      expect((await limiter.reserve(who)).allowed).toBe(true)
    })

    it('concurrent attempts never pass the limit', async () => {
      const limiter = b.limiter(5, 60_000)
      const who = { phone: phone(), email: `${randomUUID()}@example.com` }
      const results = await Promise.all(Array.from({ length: 30 }, async () => await limiter.reserve(who)))
      expect(results.filter((r) => r.allowed)).toHaveLength(5)
    })
  })
})

describe('linked accounts as Redis keeps them', () => {
  /** An account's record as stored: its pieces joined (the tenant id's field, then `1:<tenant id>`, …). */
  const storedRecord = async (p: string, tenantId: string): Promise<string> => {
    const fields = await redis.hgetall(keys.chat.linking.accounts(p))
    let raw = fields[tenantId] ?? ''
    for (let n = 1; fields[`${n}:${tenantId}`] !== undefined; n++) raw += fields[`${n}:${tenantId}`]
    return raw
  }

  it('a token of ours is kept as its claims\' order, issue time and signature, and read back exactly; others whole', async () => {
    const store = new RedisLinkedAccountStore(redis)
    const p = phone()
    const ours = await signAccessToken('a-secret-of-at-least-32-characters!', {
      sub: 'cus_bruno', role: 'member', tenants: ['club-norte'], email: 'bruno@example.com', name: 'Bruno'
    })
    const mine = account('club-norte', {
      customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', token: ours, expiresAt: Date.now() + 60_000, locale: 'es'
    })
    // a token of ours for another club than its account's, and one that is not a JWT: kept whole
    const foreign = account('club-sur', {
      token: await signAccessToken('a-secret-of-at-least-32-characters!', { sub: 'cus_ana', role: 'member', tenants: ['club-norte'] })
    })
    const opaque = account('club-oeste', { token: 'opaque-token' })
    for (const a of [mine, foreign, opaque]) await store.put(p, a)
    expect(await store.list(p)).toEqual([mine, opaque, foreign])
    const stored = await storedRecord(p, 'club-norte')
    expect(stored).not.toContain(ours.split('.')[1])
    expect(stored.length).toBeLessThan(JSON.stringify(mine).length / 2)
    expect(await storedRecord(p, 'club-sur')).toContain(foreign.token)
  })

  it('records of the first version (the account\'s JSON, with or without its tenant id) read the same', async () => {
    const store = new RedisLinkedAccountStore(redis)
    const p = phone()
    const withId = account('club-norte', { customerId: `cus_${p}` })
    const { tenantId: _, ...withoutId } = account('club-sur', { locale: 'en' })
    await redis.sadd(keys.chat.linking.members('club-norte', withId.customerId), p)
    await redis.hset(keys.chat.linking.accounts(p), 'club-norte', JSON.stringify(withId), 'club-sur', JSON.stringify(withoutId))
    expect(await store.list(p)).toEqual([withId, account('club-sur', { locale: 'en' })])
    expect(await store.phonesOf('club-norte', withId.customerId)).toEqual([p])
  })

  /** The test's Redis as a store sees it, as one Redis or as a cluster, noting each command when sent and when answered. */
  const noted = (cluster: boolean): { client: RedisClient, log: string[] } => {
    const log: string[] = []
    const client = new Proxy(redis, {
      get (target, prop) {
        if (prop === 'isCluster') return cluster
        if (prop === 'sendCommand') {
          return (command: Command, stream?: unknown) => {
            log.push(`sent ${command.name}`)
            command.promise.then(() => { log.push(`answered ${command.name}`) }, () => {})
            return target.sendCommand(command, stream as Parameters<Redis['sendCommand']>[1])
          }
        }
        const value: unknown = Reflect.get(target, prop, target)
        return typeof value === 'function' ? value.bind(client) : value
      }
    })
    return { client, log }
  }

  it('writes the member\'s set of phones before the account: beside it on one Redis, after its answer on a cluster', async () => {
    for (const cluster of [false, true]) {
      const { client, log } = noted(cluster)
      const p = phone()
      const a = account('club-norte', { customerId: `cus_${randomUUID()}` })
      await new RedisLinkedAccountStore(client).put(p, a)
      const script = expect.stringMatching(/^sent eval/)
      expect(log.slice(0, 3)).toEqual(cluster ? ['sent sadd', 'answered sadd', script] : ['sent sadd', script, 'answered sadd'])
      expect(await new RedisLinkedAccountStore(redis).list(p)).toEqual([a])
      expect(await redis.smembers(keys.chat.linking.members('club-norte', a.customerId))).toEqual([p])
    }
  })

  it('keeps an account in pieces of at most 64 bytes, so that Redis keeps the hash a compact listpack', async () => {
    const store = new RedisLinkedAccountStore(redis)
    const p = phone()
    const ours = await signAccessToken('a-secret-of-at-least-32-characters!', {
      sub: 'cus_bruno', role: 'member', tenants: ['club-norte'], email: 'bruno@example.com', name: 'Bruno'
    })
    await store.put(p, account('club-norte', { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantName: 'Club Norte', token: ours }))
    await store.setUpdates(p, 'club-norte', false)
    const fields = await redis.hgetall(keys.chat.linking.accounts(p))
    expect(Object.keys(fields).length).toBeGreaterThan(2)
    for (const value of Object.values(fields)) expect(Buffer.byteLength(value)).toBeLessThanOrEqual(64)
    expect(await redis.object('ENCODING', `${redis.options.keyPrefix ?? ''}${keys.chat.linking.accounts(p)}`)).toBe('listpack')
    // unlinked: its pieces and its setting go with it
    await store.remove(p, 'club-norte')
    expect(await redis.exists(keys.chat.linking.accounts(p))).toBe(0)
  })

  it('reads back any account put, again and again, with no piece of an earlier, longer one left (property)', async () => {
    const store = new RedisLinkedAccountStore(redis)
    const text = fc.string({ unit: 'grapheme', maxLength: 120 })
    const anAccount = fc.record({
      tenantName: text, email: text, name: text, token: fc.oneof(text, fc.constant('opaque')), locale: fc.constantFrom(undefined, 'es' as const, 'en' as const)
    })
    await fc.assert(fc.asyncProperty(fc.array(anAccount, { minLength: 1, maxLength: 4 }), async (puts) => {
      const p = phone()
      await store.put(p, account('club-sur'))
      for (const extra of puts) {
        const { locale, ...rest } = extra
        const a = account('club-norte', { ...rest, ...(locale ? { locale } : {}) })
        await store.put(p, a)
        expect(await store.list(p)).toEqual([a, account('club-sur')])
      }
      await store.remove(p, 'club-norte')
      expect(Object.keys(await redis.hgetall(keys.chat.linking.accounts(p))).filter((field) => field.includes('club-norte'))).toEqual([])
      expect(await store.list(p)).toEqual([account('club-sur')])
    }), { numRuns: 40 })
  })
})
