import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { encodeHistory } from '../../src/chat/inbox/history-codec.ts'
import { moveConversations } from '../../src/chat/inbox/migrate.ts'
import { RedisInboxStore } from '../../src/chat/inbox/store.ts'
import type { HistoryMessage } from '../../src/chat/store/index.ts'
import { keys } from '../../src/stores/keys.ts'
import { shardOf } from '../../src/stores/shards.ts'
import { testRedis, testRedisCluster } from '../helper.ts'
import { newPhone } from './support.ts'

// A phone's single conversation of before (one record and one history whatever the club) moves at start-up to
// the club its record names; its history goes with it only when the phone is linked to no other club.

const SHARDS = 8
const limits = { historyMs: 90 * 24 * 60 * 60_000, historyMax: 50 }
const b = keys.chat.bot
const msg = (id: string, at: number): HistoryMessage => ({ id, at, direction: 'in', author: 'member', type: 'text', text: id })

describe.each([['redis', testRedis], ['cluster', testRedisCluster]] as const)('conversations moved to one per club and phone (%s)', (_name, open) => {
  it('moves the record to its club, the history only when it can only be that club\'s, the handoff deadline with it; once', async () => {
    const r = await open()
    try {
      const now = Date.now()
      const [single, shared] = [newPhone(), newPhone()]
      const links: Record<string, Array<{ tenantId: string }>> = {
        [single]: [{ tenantId: 'club-norte' }], [shared]: [{ tenantId: 'club-norte' }, { tenantId: 'club-sur' }]
      }
      const deps = {
        redis: r.redis,
        tenants: { list: async () => [{ id: 'club-norte' }, { id: 'club-sur' }] as never },
        linkedAccounts: { list: async (phone: string) => (links[phone] ?? []) as never },
        shards: SHARDS,
        limits,
        log: pino({ level: 'silent' }),
      }
      for (const [phone, club] of [[single, 'club-norte'], [shared, 'club-sur']] as const) {
        const s = shardOf(phone, SHARDS)
        await r.redis.lpush(b.legacyHistory(s, phone), encodeHistory([msg(`${phone}-1`, now)]))
        await r.redis.hset(b.legacyConversation(s, phone), {
          tenantId: club, lastAt: String(now), unread: '1', handoff: JSON.stringify({ status: 'requested', at: now, deadline: now + 1_000 })
        })
        await r.redis.zadd(b.handoffDue(s), now + 1_000, phone)
        // both clubs' indexes name the phone (an order update of the other club moved it before)
        await r.redis.zadd(keys.chat.clubConversations('club-norte'), now, phone)
        await r.redis.zadd(keys.chat.clubConversations('club-sur'), now, phone)
      }
      expect(await moveConversations(deps)).toEqual({ moved: 2, historiesDropped: 1 })
      const store = new RedisInboxStore(r.redis, SHARDS, limits, () => now)
      expect((await store.history('club-norte', single, 0, 10)).map((m) => m.id)).toEqual([`${single}-1`])
      expect(await store.conversation('club-sur', single)).toBeUndefined()
      expect(await store.conversation('club-sur', shared)).toMatchObject({ tenantId: 'club-sur', unread: 1, handoff: { status: 'requested' } })
      expect(await store.history('club-sur', shared, 0, 10)).toEqual([])
      expect(await store.conversation('club-norte', shared)).toBeUndefined()
      expect(await store.dueHandoffs(shardOf(shared, SHARDS), now + 1_000, 100)).toContainEqual({ tenantId: 'club-sur', phone: shared })
      for (const phone of [single, shared]) {
        const s = shardOf(phone, SHARDS)
        expect(await r.redis.exists(b.legacyHistory(s, phone), b.legacyConversation(s, phone))).toBe(0)
        expect(await r.redis.zscore(b.handoffDue(s), phone)).toBeNull()
      }
      // done once: the next start reads one key
      expect(await moveConversations(deps)).toEqual({ moved: 0, historiesDropped: 0 })
    } finally {
      await r.cleanup()
    }
  })
})
