import { createHash } from 'node:crypto'
import fc from 'fast-check'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appliedMark, DEDUPE_TTL_SECONDS } from '../../src/chat/store/index.ts'
import { packSession, unpackSession } from '../../src/chat/session-codec.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { envelopeOf } from '../../src/chat/store/scripts.ts'
import { keys } from '../../src/stores/keys.ts'
import { shardOf } from '../../src/stores/shards.ts'
import { testRedis } from '../helper.ts'
import { newPhone } from './support.ts'

// The phone's record as stored on Redis: what each version of its fields looks like, that records written by an
// earlier version still read the same, and that what the scripts parse round-trips.

const SHARDS = 8
const hex12 = (s: string): string => createHash('sha1').update(s).digest('hex').slice(0, 12)
const tag = (s: string): string => Buffer.from(hex12(s), 'hex').toString('base64url')

describe('the phone record on Redis', () => {
  let redis: Redis
  let store: RedisChatStore
  let cleanup: () => Promise<void>
  beforeAll(async () => {
    const r = await testRedis()
    redis = r.redis
    cleanup = r.cleanup
    store = new RedisChatStore(redis, SHARDS)
  })
  afterAll(async () => { await cleanup() })

  const sessionKey = (phone: string): string => keys.chat.bot.session(shardOf(phone, SHARDS), phone)
  const record = async (phone: string): Promise<string> => (await redis.get(sessionKey(phone))) ?? ''
  const envelope = async (phone: string) => envelopeOf(await record(phone)) as { m?: string, b?: number, s?: string }
  const seenKey = (phone: string): string => keys.chat.bot.seen(shardOf(phone, SHARDS), phone)
  /** The phone's markers, oldest first: tag and epoch second. */
  const seen = async (phone: string): Promise<Array<[string, number]>> => {
    const flat = await redis.zrange(seenKey(phone), 0, -1, 'WITHSCORES')
    return Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, Number(flat[2 * i + 1])])
  }
  const tags = async (phone: string): Promise<string[]> => (await seen(phone)).map(([t]) => t)
  const serverSeconds = async (): Promise<number> => Number((await redis.time())[0])
  const accepted = async (phone: string, id: string, deliveryKey?: string): Promise<number> =>
    (await store.accept([{ phone, id, body: id }], deliveryKey === undefined ? {} : { deliveryKey })).stored

  it('keeps the de-duplication markers beside the record, a base64url tag scored by its epoch second each', async () => {
    const phone = newPhone()
    const before = await serverSeconds()
    for (let i = 0; i < 9; i++) await store.accept([{ phone, id: `wamid.${phone}-${i}`, body: 'x' }], { deliveryKey: `key-${phone}-${i}` })
    const e = await envelope(phone)
    expect(e.s ?? e.m ?? e.b).toBeUndefined()
    expect((await record(phone)).length).toBeLessThan(60)
    const markers = await seen(phone)
    expect(markers).toHaveLength(18)
    for (const [t, at] of markers) {
      expect(t).toMatch(/^[A-Za-z0-9_-]{8}$/)
      expect(at).toBeGreaterThanOrEqual(before)
    }
    expect(markers.map(([t]) => t)).toEqual(expect.arrayContaining([tag(`mwamid.${phone}-0`), tag(`kkey-${phone}-8`)]))
    const ttl = await redis.pttl(seenKey(phone))
    expect(ttl).toBeGreaterThan((DEDUPE_TTL_SECONDS - 60) * 1000)
    expect(ttl).toBeLessThanOrEqual(DEDUPE_TTL_SECONDS * 1000)
  })

  it('drops the markers older than the window and keeps the others', async () => {
    const phone = newPhone()
    const now = await serverSeconds()
    await redis.zadd(seenKey(phone), now - DEDUPE_TTL_SECONDS - 60, tag('mold'), now - DEDUPE_TTL_SECONDS, tag('molder'), now - 60, tag('myoung'))
    expect(await accepted(phone, 'new')).toBe(1)
    expect(await tags(phone)).toEqual([tag('myoung'), tag('mnew')])
    expect(await accepted(phone, 'young')).toBe(0)
    expect(await accepted(phone, 'old')).toBe(1)
    expect(await accepted(phone, 'older')).toBe(1)
  })

  it('reads the markers of the first version (hex tag = epoch seconds), drops expired ones, and moves them to the set', async () => {
    const phone = newPhone()
    const now = await serverSeconds()
    const old = `${hex12('mseen')}=${now - 60};${hex12('mgone')}=${now - DEDUPE_TTL_SECONDS - 60};${hex12('kdelivery')}=${now - 10};`
    await redis.set(sessionKey(phone), `${JSON.stringify({ s: old, v: 3, i: '1000' })}\n{"doc":1}`)
    expect(await accepted(phone, 'seen')).toBe(0)
    // only moved, nothing new: the set still expires
    expect(await redis.pttl(seenKey(phone))).toBeGreaterThan((DEDUPE_TTL_SECONDS - 60) * 1000)
    expect(await accepted(phone, 'other', 'delivery')).toBe(0)
    expect(await accepted(phone, 'gone')).toBe(1)
    const e = await envelope(phone)
    expect(e).toMatchObject({ v: 3, i: '1000' })
    expect(e.s).toBeUndefined()
    expect(e.m ?? e.b).toBeUndefined()
    expect(await tags(phone)).toEqual([tag('mseen'), tag('kdelivery'), tag('mgone')])
    // converted: still known
    expect(await accepted(phone, 'seen')).toBe(0)
    expect(await accepted(phone, 'gone')).toBe(0)
    expect((await record(phone)).endsWith('\n{"doc":1}')).toBe(true)
  })

  it('a marker is known while younger than the de-duplication window, in every form as stored (property)', async () => {
    const ages = fc.oneof(fc.integer({ min: 0, max: DEDUPE_TTL_SECONDS - 5 }), fc.integer({ min: DEDUPE_TTL_SECONDS + 5, max: 3 * DEDUPE_TTL_SECONDS }))
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 20 }), age: ages }), { selector: (x) => x.id, minLength: 1, maxLength: 8 }),
        fc.constantFrom('first', 'second', 'own set'),
        async (ids, form) => {
          const phone = newPhone()
          const now = await serverSeconds()
          if (form === 'own set') {
            for (const x of ids) await redis.zadd(seenKey(phone), now - x.age, tag(`m${x.id}`))
          } else {
            const stored = form === 'first'
              ? { s: ids.map((x) => `${hex12(`m${x.id}`)}=${now - x.age};`).join('') }
              : { m: ids.map((x) => `${tag(`m${x.id}`)}${x.age.toString(36)};`).join(''), b: now }
            await redis.set(sessionKey(phone), `${JSON.stringify({ ...stored, v: 1 })}\n`)
          }
          for (const x of ids) expect({ ...x, stored: await accepted(phone, x.id) }).toEqual({ ...x, stored: x.age < DEDUPE_TTL_SECONDS ? 0 : 1 })
          // every one is known now, in the current form only
          for (const x of ids) expect(await accepted(phone, x.id)).toBe(0)
          const e = await envelope(phone)
          expect(e.s ?? e.m ?? e.b).toBeUndefined()
          expect((await tags(phone)).sort()).toEqual(ids.map((x) => tag(`m${x.id}`)).sort())
        }
      ),
      { numRuns: 30 }
    )
  })

  // a linked member's document at the main menu, as the machine writes it
  const linkedDoc = '{"machineVersion":2,"state":"MAIN_MENU","phone":"5490005000000","tenantId":"club-norte","cart":[],"lastActivity":1795590243995,' +
    '"accounts":[{"tenantId":"club-norte","tenantName":"Club ' +
      'Norte","name":"Bruno","role":"member","linkedAt":1795590242986,"expiresAt":1795593842000,"locale":"es"}],"linkFailures":0,"options":["menu:browse",' +
        '"menu:cart","menu:repeat","menu:orders","menu:notifications","menu:updates-off","menu:person","menu:language","menu:unlink"],"shown":[],' +
          '"catalogOffset":0,"catalogCount":0}'

  it('keeps the session document packed (a linked member\'s: about a quarter of its JSON) and answers it as it was committed', async () => {
    const phone = newPhone()
    await store.accept([{ phone, id: `${phone}-1`, body: '1' }, { phone, id: `${phone}-2`, body: '2' }])
    const first = await store.takeTurn(phone, 'w', 10_000)
    if (first.kind !== 'ok') throw new Error(first.kind)
    const next = await store.commitTurn(
      phone, 'w', { expected: 0, doc: linkedDoc, applied: [first.work.message], message: first.work.message, replies: [] }, 10_000
    )
    expect(next).toMatchObject({ kind: 'more', work: { session: { version: 1, doc: linkedDoc } } })
    const stored = (await record(phone)).split('\n')[1]!
    expect(stored.startsWith('~')).toBe(true)
    expect(stored.length).toBeLessThan(linkedDoc.length / 4)
  })

  it('a session document stored before packing (JSON as it is) reads the same', async () => {
    const phone = newPhone()
    await redis.set(sessionKey(phone), `${JSON.stringify({ v: 4, a: ['0123456789ab'] })}\n${linkedDoc}`)
    await store.accept([{ phone, id: `${phone}-1`, body: '1' }])
    const taken = await store.takeTurn(phone, 'w', 10_000)
    expect(taken).toMatchObject({ kind: 'ok', work: { session: { version: 4, doc: linkedDoc, applied: ['0123456789ab'] } } })
    expect(unpackSession(linkedDoc)).toBe(linkedDoc)
  })

  it('a document stored by the codec before its window was made smaller (a match 4,700 bytes back) reads the same', () => {
    const x = 'QWERTYUIOPASDFGHJKLZXCVBNM0123456789qwertyuiopasdfghjklzxcvbnm'
    const stored = '~q1ZKVLJSCgx3DQqJDPX0D3AMdnFz9/Dy9omKcA5z8vM1MDQyNjE1M7ewLCxPLSqpLM3ML0gsTklLz8jKzqmqSC5LygPln4JEkHVVo2AUjIJRMApGwSgYBaNgFIyCUTAK' +
      'RsEoGAWjYFgCJR2lJMpHkWoB'
    expect(unpackSession(stored)).toBe(JSON.stringify({ a: x, pad: 'z'.repeat(4600), b: x }))
  })

  it('a document larger than the kept engines\' buffer (64 KB) packs and reads back the same', () => {
    const doc = JSON.stringify({ cart: Array.from({ length: 2000 }, (_, i) => ({ variantId: `variant_${i}`, title: `Producto ${i * 7919}` })) })
    expect(doc.length).toBeGreaterThan(64 * 1024)
    expect(unpackSession(packSession(doc))).toBe(doc)
  })

  it('a damaged record throws as it always did, and the records after it still read', () => {
    const doc = JSON.stringify({ machineVersion: 2, state: 'MAIN_MENU', phone: '5491100000001', cart: [] })
    const packed = packSession(doc)
    expect(() => unpackSession(packed.slice(0, 8))).toThrow(/unexpected end of file/)
    expect(unpackSession(packed)).toBe(doc)
    expect(() => unpackSession(packed.slice(0, 8))).toThrow(/unexpected end of file/)
    expect(unpackSession(packSession(doc + ' '))).toBe(doc + ' ')
  })

  it('packing round-trips any document, and never leaves a newline in the record (property)', () => {
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'grapheme', minLength: 1 }), fc.json()), (doc) => {
      const packed = packSession(doc)
      expect(packed).not.toContain('\n')
      expect(unpackSession(packed)).toBe(doc)
    }), { numRuns: 300 })
  })

  it('keeps the applied marks packed (8 characters each) and answers them as marks; first-version lists still read (property)', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.string({ minLength: 1, maxLength: 60 }), { maxLength: 8 }), fc.boolean(), async (ids, first) => {
      const phone = newPhone()
      const marks = ids.map(appliedMark)
      if (first) await redis.set(sessionKey(phone), `${JSON.stringify({ v: 2, a: ids })}\n{}`)
      else {
        await store.accept([{ phone, id: `${phone}-0`, body: '0' }])
        const taken = await store.takeTurn(phone, 'w', 10_000)
        if (taken.kind !== 'ok') throw new Error(taken.kind)
        await store.commitTurn(phone, 'w', { expected: 0, doc: '{}', applied: ids, message: '0', replies: [] }, 10_000)
        const e = envelopeOf(await record(phone)) as { p?: string, a?: unknown }
        expect(e.a).toBeUndefined()
        expect(e.p).toHaveLength(8 * ids.length)
      }
      await store.accept([{ phone, id: `${phone}-1`, body: '1' }])
      const taken = await store.takeTurn(phone, 'w', 10_000)
      expect(taken).toMatchObject({ kind: 'ok', work: { session: { applied: first ? ids : marks } } })
    }), { numRuns: 30, examples: [[['+ '], true], [['+', '-x'], true], [[], true]] })
  })
})
