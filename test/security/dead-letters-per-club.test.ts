import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeMail } from '../../src/chat/mail.ts'
import { DEAD_KEPT, deadLetterId, type DeadLetter } from '../../src/chat/store/index.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { keys } from '../../src/stores/keys.ts'
import { shardOf } from '../../src/stores/shards.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { newPhone } from '../chat/support.ts'

// Issue 25, item 7: dead letters were read newest-first over the whole service, then filtered by club, and kept
// per shard whatever the club: another club's failures pushed a club's own out of its list. Each club's list is
// its own; letters of before are moved to their club's list at start-up.

describe("each club's dead letters are its own", () => {
  let t: TestApp
  const phone = newPhone()
  const b = keys.chat.bot
  const mail = (id: string) => encodeMail({ id, phone, receivedAt: Date.now(), input: { kind: 'text', text: 'hola' } })
  const letter = (unique: string, tenantId: string | undefined, at: number): DeadLetter =>
    ({ id: deadLetterId(shardOf(phone, 8), unique), lane: 'turn', phone, tenantId, reason: 'the club\'s data is broken', at, tries: 5, payload: mail(unique) })
  const before = {
    norte: letter('old-norte', 'club-norte', Date.now() - 60_000),
    sur: letter('old-sur', 'club-sur', Date.now() - 50_000),
    none: letter('old-none', undefined, Date.now() - 40_000)
  }

  beforeAll(async () => {
    t = await buildTestApp({ ready: false, env: { CHAT_SHARDS: '8' } })
    // letters as the service kept them before: one index per shard for every club
    const s = shardOf(phone, 8)
    for (const l of Object.values(before)) {
      await t.redis!.hset(b.dead(s), l.id, JSON.stringify(l))
      await t.redis!.zadd(b.deadIndex(s), l.at, l.id)
    }
    await t.app.ready()
  })
  afterAll(async () => { await t.close() })

  const list = async (club: string, limit = 200): Promise<string[]> => {
    const res = await t.app.inject({ url: `/api/chat/dead-letters?limit=${limit}`, headers: await t.auth('admin', club) })
    expect(res.statusCode).toBe(200)
    return (res.json().deadLetters as Array<{ id: string }>).map((l) => l.id)
  }

  it("another club's many newer failures on the same shard neither show in a club's list nor push its letters out", async () => {
    expect(t.app.config.chat.shards).toBe(8)
    expect(await list('club-norte')).toEqual([before.norte.id])
    expect(await list('club-sur')).toEqual([before.sur.id])

    // Club Sur's turns for the phone keep failing, more than a list keeps
    const store = new RedisChatStore(t.redis!, 8)
    const sur = Array.from({ length: DEAD_KEPT + 1 }, (_, i) => letter(`sur-${i}`, 'club-sur', Date.now() + i))
    await store.accept(sur.map((l) => ({ phone, id: l.id, body: l.payload })))
    const taken = await store.takeTurn(phone, 'test', 60_000)
    expect(taken.kind).toBe('ok')
    for (const l of sur) expect((await store.deadTurn(phone, 'test', l, 60_000)).kind).not.toBe('lost')

    expect(await list('club-norte')).toEqual([before.norte.id])
    const surs = await list('club-sur')
    expect(surs).toHaveLength(200)
    expect(surs[0]).toBe(sur[DEAD_KEPT]?.id)
    expect(surs).not.toContain(before.norte.id)

    // and only its admin may drive it back
    const retry = async (club: string) =>
      (await t.app.inject({ method: 'POST', url: `/api/chat/dead-letters/${before.norte.id}/retry`, headers: await t.auth('admin', club) })).statusCode
    expect(await retry('club-sur')).toBe(404)
    expect(await retry('club-norte')).toBe(200)
    expect(await list('club-norte')).toEqual([])
  }, 60_000)

  it('a letter of no club is listed to no club', async () => {
    const ids = [...await list('club-norte'), ...await list('club-sur')]
    expect(ids).not.toContain(before.none.id)
    expect(await t.redis!.zscore(b.deadIndex(shardOf(phone, 8)), before.none.id)).not.toBeNull()
  })
})
