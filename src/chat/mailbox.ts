import type { Redis } from 'ioredis'
import { keys } from '../stores/keys.ts'

// Each phone's accepted messages, in arrival order, and the lease that lets one worker (of any instance) take
// them one at a time. A message leaves the mailbox only when its turn has run; a worker that dies leaves it
// at the head, and its lease runs out so that another worker picks it up.

/** The provider retries for about 90 seconds; duplicates are remembered far longer than that. */
export const DEDUPE_TTL_SECONDS = 24 * 60 * 60

export type AckResult = 'more' | 'done' | 'lost'

/** One message for a phone's mailbox: its provider id (for de-duplication) and what the worker will read. */
export interface Letter {
  phone: string
  id: string
  body: string
}

export interface Mailbox {
  /**
   * In one step: unless the delivery key was accepted before, appends each letter whose id is new, in order, and
   * remembers the key. Answers how many letters were stored (0 for a delivery or letters seen before).
   */
  accept (letters: Letter[], deliveryKey?: string): Promise<number>
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

  async accept (letters: Letter[], deliveryKey?: string) {
    if (deliveryKey !== undefined && !this.remember(`d:${deliveryKey}`)) return 0
    let fresh = 0
    for (const { phone, id, body } of letters) {
      if (!this.remember(`m:${id}`)) continue
      const box = this.boxes.get(phone)
      if (box) box.messages.push(body)
      else this.boxes.set(phone, { messages: [body], dueAt: this.now(), owner: undefined })
      fresh++
    }
    return fresh
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
  // One round trip for a whole delivery. KEYS ready, [delivery], then seen_i, mailbox_i per letter;
  // ARGV ttlSeconds, hasDelivery ('1' or '0'), then body_i, phone_i per letter.
  chatAccept: {
    lua: `${NOW_MS}
local first = 2
if ARGV[2] == '1' then
  if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[1]) then return 0 end
  first = 3
end
local fresh = 0
for i = 0, (#KEYS - first + 1) / 2 - 1 do
  if redis.call('SET', KEYS[first + 2 * i], '1', 'NX', 'EX', ARGV[1]) then
    redis.call('RPUSH', KEYS[first + 2 * i + 1], ARGV[3 + 2 * i])
    redis.call('ZADD', KEYS[1], 'NX', now, ARGV[4 + 2 * i])
    fresh = fresh + 1
  end
end
return fresh`,
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
  /** numberOfKeys first: the count varies with the delivery. */
  chatAccept (numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<number>
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

  async accept (letters: Letter[], deliveryKey?: string) {
    const b = keys.chat.bot
    const keyList = [b.ready(), ...(deliveryKey === undefined ? [] : [b.seenDelivery(deliveryKey)]), ...letters.flatMap((l) => [b.seenMessage(l.id), b.mailbox(l.phone)])]
    const args = [DEDUPE_TTL_SECONDS, deliveryKey === undefined ? '0' : '1', ...letters.flatMap((l) => [l.body, l.phone])]
    return await this.redis.chatAccept(keyList.length, ...keyList, ...args)
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
