import type { FastifyBaseLogger } from 'fastify'
import { keys } from '../stores/keys.ts'
import type { RedisClient } from '../stores/redis-client.ts'
import { DEAD_KEPT, type DeadLetter } from './store/port.ts'
import { indexDead } from './store/scripts.ts'

// Dead letters were once indexed per shard whatever the club, and an admin's list read the newest of every club
// then kept their club's: another club's failures pushed a club's own out. Each club now has its own index in
// each shard; at start-up the letters the shard's index still holds move to their club's (one script per club
// and shard, so instances starting together move each once). Run at every start, as an instance of before may
// still have written some during a rolling update; what stays is of no club, a few at most.

export interface IndexDeps {
  redis: RedisClient
  shards: number
  log: FastifyBaseLogger
}

const b = keys.chat.bot

export async function indexDeadLettersByClub ({ redis, shards, log }: IndexDeps): Promise<number> {
  let moved = 0
  for (let s = 0; s < shards; s++) {
    const ids = await redis.zrange(b.deadIndex(s), 0, -1)
    if (ids.length === 0) continue
    const byClub = new Map<string, string[]>()
    const records = await redis.hmget(b.dead(s), ...ids)
    records.forEach((raw, i) => {
      if (raw === null) return
      const tenantId = (JSON.parse(raw) as DeadLetter).tenantId
      if (tenantId !== undefined) byClub.set(tenantId, [...(byClub.get(tenantId) ?? []), ids[i] as string])
    })
    for (const [tenantId, clubIds] of byClub) {
      moved += await indexDead(
        redis, [b.dead(s), b.deadIndex(s), b.deadOfClub(s, tenantId)], tenantId, DEAD_KEPT, ...clubIds
      )
    }
  }
  if (moved > 0) log.info({ moved }, 'chat dead letters moved to their club\'s index')
  return moved
}
