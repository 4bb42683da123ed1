import type { Redis } from 'ioredis'
import { keys } from '../stores/keys.ts'

// Each phone's accepted messages, in arrival order, and the lease that lets one worker (of any instance) take
// them one at a time. A message leaves the mailbox only when its turn has run; a worker that dies leaves it
// at the head, and its lease runs out so that another worker picks it up.

/** The provider retries for about 90 seconds; duplicates are remembered far longer than that. */
export const DEDUPE_TTL_SECONDS = 24 * 60 * 60

export type AckResult = 'more' | 'done' | 'lost'

export interface Mailbox {
  /** True when a delivery with this key was already accepted. */
  deliverySeen (key: string): Promise<boolean>
  markDelivery (key: string): Promise<void>
  /** Appends the message unless its id was seen before; false for a duplicate. */
  append (phone: string, messageId: string, message: string): Promise<boolean>
  /** A phone whose mail is due and not leased, now leased to `owner` for `leaseMs`. */
  claim (owner: string, leaseMs: number): Promise<string | undefined>
  /** The oldest message of a phone, left in place. */
  head (phone: string): Promise<string | undefined>
  /** Removes the head after its turn; 'more' keeps the lease, 'done' ends it, 'lost' means another owner holds it. */
  ack (phone: string, owner: string, leaseMs: number): Promise<AckResult>
  renew (phone: string, owner: string, leaseMs: number): Promise<boolean>
  /** Gives the lease back so that any worker may take the phone at once (shutdown). */
  release (phone: string, owner: string): Promise<void>
  /** True while the phone has mail waiting or in progress. */
  pending (phone: string): Promise<boolean>
}

interface Entry { messages: string[], dueAt: number, owner: string | undefined }

export class MemoryMailbox implements Mailbox {
  private readonly boxes = new Map<string, Entry>()
  private readonly seen = new Map<string, number>()

  constructor (private readonly now: () => number = Date.now) {}

  private remember (key: string): boolean {
    const until = this.seen.get(key)
    if (until !== undefined && until > this.now()) return false
    this.seen.set(key, this.now() + DEDUPE_TTL_SECONDS * 1000)
    if (this.seen.size > 100_000) this.sweep()
    return true
  }

  private sweep (): void {
    const now = this.now()
    for (const [key, until] of this.seen) if (until <= now) this.seen.delete(key)
  }

  async deliverySeen (key: string) {
    const until = this.seen.get(`d:${key}`)
    return until !== undefined && until > this.now()
  }

  async markDelivery (key: string) { this.remember(`d:${key}`) }

  async append (phone: string, messageId: string, message: string) {
    if (!this.remember(`m:${messageId}`)) return false
    const box = this.boxes.get(phone)
    if (box) box.messages.push(message)
    else this.boxes.set(phone, { messages: [message], dueAt: this.now(), owner: undefined })
    return true
  }

  async claim (owner: string, leaseMs: number) {
    const now = this.now()
    let best: [string, Entry] | undefined
    for (const pair of this.boxes) if (pair[1].dueAt <= now && (!best || pair[1].dueAt < best[1].dueAt)) best = pair
    if (!best) return undefined
    best[1].dueAt = now + leaseMs
    best[1].owner = owner
    return best[0]
  }

  async head (phone: string) { return this.boxes.get(phone)?.messages[0] }

  async ack (phone: string, owner: string, leaseMs: number): Promise<AckResult> {
    const box = this.boxes.get(phone)
    if (!box || box.owner !== owner) return 'lost'
    box.messages.shift()
    if (box.messages.length === 0) {
      this.boxes.delete(phone)
      return 'done'
    }
    box.dueAt = this.now() + leaseMs
    return 'more'
  }

  async renew (phone: string, owner: string, leaseMs: number) {
    const box = this.boxes.get(phone)
    if (!box || box.owner !== owner) return false
    box.dueAt = this.now() + leaseMs
    return true
  }

  async release (phone: string, owner: string) {
    const box = this.boxes.get(phone)
    if (box?.owner === owner) Object.assign(box, { owner: undefined, dueAt: this.now() })
  }

  async pending (phone: string) { return this.boxes.has(phone) }
}

// Times come from the Redis server, so that leases mean the same on every instance whatever their clocks.
const NOW_MS = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)"

const SCRIPTS = {
  // KEYS seen, mailbox, ready; ARGV ttlSeconds, message, phone
  chatAppend: {
    numberOfKeys: 3,
    lua: `${NOW_MS}
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], 'NX', now, ARGV[3])
return 1`,
  },
  // KEYS ready, owners; ARGV owner, leaseMs
  chatClaim: {
    numberOfKeys: 2,
    lua: `${NOW_MS}
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 1)
if #due == 0 then return false end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), due[1])
redis.call('HSET', KEYS[2], due[1], ARGV[1])
return due[1]`,
  },
  // KEYS mailbox, ready, owners; ARGV phone, owner, leaseMs
  chatAck: {
    numberOfKeys: 3,
    lua: `${NOW_MS}
if redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return 'lost' end
redis.call('LPOP', KEYS[1])
if redis.call('LLEN', KEYS[1]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  return 'done'
end
redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[3]), ARGV[1])
return 'more'`,
  },
  // KEYS ready, owners; ARGV phone, owner, leaseMs (0: give the lease back)
  chatLease: {
    numberOfKeys: 2,
    lua: `${NOW_MS}
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
if tonumber(ARGV[3]) == 0 then redis.call('HDEL', KEYS[2], ARGV[1]) end
return 1`,
  },
} as const

interface MailboxCommands {
  chatAppend (seen: string, mailbox: string, ready: string, ttl: number, message: string, phone: string): Promise<number>
  chatClaim (ready: string, owners: string, owner: string, leaseMs: number): Promise<string | null>
  chatAck (mailbox: string, ready: string, owners: string, phone: string, owner: string, leaseMs: number): Promise<AckResult>
  chatLease (ready: string, owners: string, phone: string, owner: string, leaseMs: number): Promise<number>
}

export class RedisMailbox implements Mailbox {
  private readonly redis: Redis & MailboxCommands

  constructor (redis: Redis) {
    for (const [name, script] of Object.entries(SCRIPTS)) {
      if (!(name in redis)) redis.defineCommand(name, script)
    }
    this.redis = redis as Redis & MailboxCommands
  }

  async deliverySeen (key: string) { return (await this.redis.exists(keys.chat.bot.seenDelivery(key))) === 1 }

  async markDelivery (key: string) { await this.redis.set(keys.chat.bot.seenDelivery(key), '1', 'EX', DEDUPE_TTL_SECONDS) }

  async append (phone: string, messageId: string, message: string) {
    const b = keys.chat.bot
    return (await this.redis.chatAppend(b.seenMessage(messageId), b.mailbox(phone), b.ready(), DEDUPE_TTL_SECONDS, message, phone)) === 1
  }

  async claim (owner: string, leaseMs: number) {
    return (await this.redis.chatClaim(keys.chat.bot.ready(), keys.chat.bot.owners(), owner, leaseMs)) ?? undefined
  }

  async head (phone: string) { return (await this.redis.lindex(keys.chat.bot.mailbox(phone), 0)) ?? undefined }

  async ack (phone: string, owner: string, leaseMs: number) {
    const b = keys.chat.bot
    return await this.redis.chatAck(b.mailbox(phone), b.ready(), b.owners(), phone, owner, leaseMs)
  }

  async renew (phone: string, owner: string, leaseMs: number) {
    return (await this.redis.chatLease(keys.chat.bot.ready(), keys.chat.bot.owners(), phone, owner, leaseMs)) === 1
  }

  async release (phone: string, owner: string) {
    await this.redis.chatLease(keys.chat.bot.ready(), keys.chat.bot.owners(), phone, owner, 0)
  }

  async pending (phone: string) { return (await this.redis.zscore(keys.chat.bot.ready(), phone)) !== null }
}

export function createMailbox (redis: Redis | null): Mailbox {
  return redis ? new RedisMailbox(redis) : new MemoryMailbox()
}
