import type { FastifyBaseLogger } from 'fastify'
import { keys } from '../../stores/keys.ts'
import type { RedisClient } from '../../stores/redis-client.ts'
import { shardOf } from '../../stores/shards.ts'
import type { TenantStore } from '../../tenants/store.ts'
import type { LinkedAccountStore } from '../linking/types.ts'
import type { InboxLimits } from '../store/port.ts'
import { moveConversation } from '../store/scripts.ts'

// A phone's conversation was once one record and one history whatever the club, so one club could read what
// another said to a member of both. Each club now has its own conversation with the phone; at start-up the
// record of before moves to the club it names (found through that club's index: no scan of the keyspace). Its
// history moves with it only when it can be told to be that club's: the phone is linked to no other club. Else
// nobody can tell which club said what, and the history is dropped rather than shown to the wrong club
// (docs/chat.md). Each phone is one script, so instances starting together move it once; the pass is marked done.

export interface MoveDeps {
  redis: RedisClient
  tenants: Pick<TenantStore, 'list'>
  linkedAccounts: Pick<LinkedAccountStore, 'list'>
  shards: number
  limits: InboxLimits
  log: FastifyBaseLogger
}

const b = keys.chat.bot

export async function moveConversations (
  { redis, tenants, linkedAccounts, shards, limits, log }: MoveDeps
): Promise<{ moved: number, historiesDropped: number }> {
  if (await redis.exists(keys.chat.conversationsMoved()) === 1) return { moved: 0, historiesDropped: 0 }
  let moved = 0
  let historiesDropped = 0
  for (const tenant of await tenants.list()) {
    for (const phone of await redis.zrange(keys.chat.clubConversations(tenant.id), 0, -1)) {
      const s = shardOf(phone, shards)
      if (await redis.hget(b.legacyConversation(s, phone), 'tenantId') !== tenant.id) continue
      const clubs = new Set((await linkedAccounts.list(phone)).map((a) => a.tenantId))
      const keep = [...clubs].every((c) => c === tenant.id)
      if (await moveConversation(
        redis,
        [b.legacyHistory(s, phone), b.legacyConversation(s, phone), b.history(s, tenant.id, phone), b.conversation(s, tenant.id, phone), b.handoffDue(s)],
        tenant.id, phone, keep ? '1' : '0', limits.historyMax
      )) {
        moved++
        if (!keep) historiesDropped++
      }
    }
  }
  // handoff deadlines of conversations no club's index named any more: nothing to hand back
  for (let s = 0; s < shards; s++) {
    const stale = (await redis.zrange(b.handoffDue(s), 0, -1)).filter((m) => !m.includes(':'))
    if (stale.length > 0) await redis.zrem(b.handoffDue(s), ...stale)
  }
  await redis.set(keys.chat.conversationsMoved(), String(Date.now()))
  if (moved > 0) log.info({ moved, historiesDropped }, 'chat conversations moved to one per club and phone')
  return { moved, historiesDropped }
}
