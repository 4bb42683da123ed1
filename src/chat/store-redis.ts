import type { RedisClient } from '../plugins/redis.ts'
import { keys } from '../stores/keys.ts'
import { shardOf } from './shards.ts'
import {
  DEAD_KEPT, DEDUPE_TTL_SECONDS, INBOUND_AT_TTL_MS, LINK_RESULT_TTL_MS, SYSTEM_SENT_TTL_MS, MemoryChatStore, SESSION_TTL_MS, shardOfDeadLetter,
  type ChatStore, type Commit, type DeadLetter, type Lane, type Letter, type Next, type SendWork, type Taken, type TurnWork,
} from './store.ts'

// The chat store on Redis. Every script touches the keys of one phone and of its shard only, all under the
// shard's hash tag, and receives them all in KEYS. Times come from the Redis server, so that leases mean the
// same on every instance whatever their clocks.

const NOW_MS = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)"

// After the head was removed: end the lease when the queue is empty, else keep it for the next head and, for
// turns, answer that head with the session it runs against. KEYS[list], KEYS[zset], KEYS[owners], KEYS[meta].
const NEXT = (list: number, zset: number, owners: number, meta: number, lane: string, leaseMs: string) => `
local head = redis.call('LINDEX', KEYS[${list}], 0)
if not head then
  redis.call('ZREM', KEYS[${zset}], ARGV[1])
  redis.call('HDEL', KEYS[${owners}], ARGV[1])
  return {'done'}
end
redis.call('ZADD', KEYS[${zset}], 'XX', now + tonumber(${leaseMs}), ARGV[1])
if ${lane} == 'turn' then
  redis.call('HSET', KEYS[${meta}], 'tries', 1)
  redis.call('HDEL', KEYS[${meta}], 'err')
  local s = redis.call('HMGET', KEYS[${meta}], 'v', 'doc', 'applied')
  return {'more', head, s[1] or '0', s[2] or '', s[3] or '', '1', ''}
end
return {'more', head, '0'}`

const SCRIPTS = {
  // KEYS ready, [delivery], then seen_i, mailbox_i per letter; ARGV ttlSeconds, hasDelivery, then body_i, phone_i
  chatAccept: {
    lua: `${NOW_MS}
local first = 2
if ARGV[2] == '1' then
  if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[1]) then return {} end
  first = 3
end
local fresh = {}
for i = 0, (#KEYS - first + 1) / 2 - 1 do
  if redis.call('SET', KEYS[first + 2 * i], '1', 'NX', 'EX', ARGV[1]) then
    redis.call('RPUSH', KEYS[first + 2 * i + 1], ARGV[3 + 2 * i])
    redis.call('ZADD', KEYS[1], 'NX', now, ARGV[4 + 2 * i])
    fresh[#fresh + 1] = ARGV[4 + 2 * i]
  end
end
return fresh`,
  },
  // KEYS ready, sendable; ARGV turnLimit, sendLimit: the shard's due phones of both lanes in one command
  chatDue: {
    numberOfKeys: 2,
    lua: `${NOW_MS}
local function due (key, limit)
  if tonumber(limit) == 0 then return {} end
  return redis.call('ZRANGEBYSCORE', key, '-inf', now, 'LIMIT', 0, limit)
end
return {due(KEYS[1], ARGV[1]), due(KEYS[2], ARGV[2])}`,
  },
  // KEYS zset, owners, list, meta; ARGV phone, owner, leaseMs, lane
  chatTake: {
    numberOfKeys: 4,
    lua: `${NOW_MS}
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due then return {'empty'} end
if tonumber(due) > now then return {'busy', tostring(tonumber(due) - now)} end
local head = redis.call('LINDEX', KEYS[3], 0)
if not head then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return {'empty'}
end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[4] == 'turn' then
  local tries = redis.call('HINCRBY', KEYS[4], 'tries', 1)
  local s = redis.call('HMGET', KEYS[4], 'v', 'doc', 'applied', 'err')
  return {'ok', head, s[1] or '0', s[2] or '', s[3] or '', tostring(tries), s[4] or ''}
end
return {'ok', head, redis.call('HGET', KEYS[4], ARGV[1]) or '0'}`,
  },
  // KEYS session, mailbox, outbox, ready, owners, sendable;
  // ARGV phone, owner, expected, doc ('' = ack only), applied, message, leaseMs, ttlMs, then the replies
  chatCommit: {
    numberOfKeys: 6,
    lua: `${NOW_MS}
if redis.call('HGET', KEYS[5], ARGV[1]) ~= ARGV[2] then return {'lost'} end
local due = redis.call('ZSCORE', KEYS[4], ARGV[1])
if not due or tonumber(due) <= now then return {'lost'} end
if redis.call('LINDEX', KEYS[2], 0) ~= ARGV[6] then return {'lost'} end
local v = redis.call('HGET', KEYS[1], 'v') or '0'
if v ~= ARGV[3] then return {'lost'} end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'v', tonumber(v) + 1, 'doc', ARGV[4], 'applied', ARGV[5])
end
redis.call('HDEL', KEYS[1], 'tries', 'err')
redis.call('PEXPIRE', KEYS[1], ARGV[8])
if #ARGV > 8 then
  for i = 9, #ARGV do redis.call('RPUSH', KEYS[3], ARGV[i]) end
  redis.call('ZADD', KEYS[6], 'NX', now, ARGV[1])
end
redis.call('LPOP', KEYS[2])
${NEXT(2, 4, 5, 1, "'turn'", 'ARGV[7]')}`,
  },
  // Removes the head the owner holds, optionally into the dead letters.
  // KEYS list, zset, owners, meta, dead, deadIndex; ARGV phone, owner, head, leaseMs, lane, deadId ('' = none), deadRecord, deadKept
  chatPop: {
    numberOfKeys: 6,
    lua: `${NOW_MS}
if redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return {'lost'} end
local due = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not due or tonumber(due) <= now then return {'lost'} end
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[3] then return {'lost'} end
redis.call('LPOP', KEYS[1])
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[5], ARGV[6], ARGV[7])
  redis.call('ZADD', KEYS[6], now, ARGV[6])
  local over = redis.call('ZCARD', KEYS[6]) - tonumber(ARGV[8])
  if over > 0 then
    local old = redis.call('ZRANGE', KEYS[6], 0, over - 1)
    redis.call('ZREMRANGEBYRANK', KEYS[6], 0, over - 1)
    redis.call('HDEL', KEYS[5], unpack(old))
  end
end
if ARGV[5] == 'turn' then
  redis.call('HDEL', KEYS[4], 'tries', 'err')
else
  redis.call('HDEL', KEYS[4], ARGV[1])
end
${NEXT(1, 2, 3, 4, 'ARGV[5]', 'ARGV[4]')}`,
  },
  // KEYS zset, owners, meta; ARGV phone, owner, delayMs, lane, failed ('1'/'0'), hasError, error
  chatRelease: {
    numberOfKeys: 3,
    lua: `${NOW_MS}
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[4] == 'turn' then
  if ARGV[5] == '0' and tonumber(redis.call('HGET', KEYS[3], 'tries') or '0') > 0 then redis.call('HINCRBY', KEYS[3], 'tries', -1) end
  if ARGV[6] == '1' then redis.call('HSET', KEYS[3], 'err', ARGV[7]) end
elseif ARGV[5] == '1' then
  redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
end
return 1`,
  },
  // KEYS zset, owners; ARGV phone, owner, leaseMs
  chatRenew: {
    numberOfKeys: 2,
    lua: `${NOW_MS}
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) <= now then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
return 1`,
  },
  // KEYS dead, deadIndex, list, zset; ARGV id, phone
  chatRedrive: {
    numberOfKeys: 4,
    lua: `${NOW_MS}
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('RPUSH', KEYS[3], cjson.decode(record).payload)
redis.call('ZADD', KEYS[4], 'NX', now, ARGV[2])
return record`,
  },
  // KEYS outbox, sendable; ARGV phone, entries...
  chatEnqueue: {
    numberOfKeys: 2,
    lua: `${NOW_MS}
for i = 2, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
redis.call('ZADD', KEYS[2], 'NX', now, ARGV[1])
return 1`,
  },
  // KEYS sent, outbox, sendable; ARGV phone, entry, ttlMs: the id's marker and the entry together, or neither
  chatEnqueueSystem: {
    numberOfKeys: 3,
    lua: `${NOW_MS}
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[3]) then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], 'NX', now, ARGV[1])
return 1`,
  },
} as const

type Reply = Array<string | null>

interface ChatCommands {
  chatAccept (numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<string[]>
  chatDue (ready: string, sendable: string, turnLimit: number, sendLimit: number): Promise<[string[], string[]]>
  chatTake (...keysThenArgs: Array<string | number>): Promise<Reply>
  chatCommit (...keysThenArgs: Array<string | number>): Promise<Reply>
  chatPop (...keysThenArgs: Array<string | number>): Promise<Reply>
  chatRelease (...keysThenArgs: Array<string | number>): Promise<number>
  chatRenew (...keysThenArgs: Array<string | number>): Promise<number>
  chatRedrive (...keysThenArgs: Array<string | number>): Promise<string | null>
  chatEnqueue (...keysThenArgs: Array<string | number>): Promise<number>
  chatEnqueueSystem (...keysThenArgs: Array<string | number>): Promise<number>
}

const b = keys.chat.bot
const APPLIED_SEPARATOR = '\n'

function turnWork (phone: string, r: Reply): TurnWork {
  const [, message, v, doc, applied, tries, err] = r
  return {
    phone,
    message: message as string,
    session: { version: Number(v ?? 0), doc: doc || undefined, applied: applied ? applied.split(APPLIED_SEPARATOR) : [] },
    tries: Number(tries ?? 1),
    lastError: err || undefined,
  }
}

function next<T> (r: Reply, work: (r: Reply) => T): Next<T> {
  if (r[0] === 'more') return { kind: 'more', work: work(r) }
  return { kind: r[0] === 'done' ? 'done' : 'lost' }
}

function taken<T> (r: Reply, work: (r: Reply) => T): Taken<T> {
  if (r[0] === 'ok') return { kind: 'ok', work: work(r) }
  if (r[0] === 'busy') return { kind: 'busy', inMs: Number(r[1]) }
  return { kind: 'empty' }
}

export class RedisChatStore implements ChatStore {
  private readonly redis: RedisClient & ChatCommands

  constructor (redis: RedisClient, readonly shards: number) {
    for (const [name, script] of Object.entries(SCRIPTS)) {
      if (!(name in redis)) redis.defineCommand(name, script)
    }
    this.redis = redis as RedisClient & ChatCommands
  }

  private shard (phone: string): number { return shardOf(phone, this.shards) }

  private laneKeys (lane: Lane, phone: string): { zset: string, owners: string, list: string, meta: string } {
    const s = this.shard(phone)
    return lane === 'turn'
      ? { zset: b.ready(s), owners: b.owners(s), list: b.mailbox(s, phone), meta: b.session(s, phone) }
      : { zset: b.sendable(s), owners: b.senders(s), list: b.outbox(s, phone), meta: b.sendTries(s) }
  }

  /** One script per shard the delivery touches; each remembers the delivery key for its own letters. */
  async accept (letters: Letter[], deliveryKey?: string) {
    const byShard = new Map<number, Letter[]>()
    for (const l of letters) byShard.set(this.shard(l.phone), [...(byShard.get(this.shard(l.phone)) ?? []), l])
    const fresh = await Promise.all([...byShard].map(async ([s, group]) => {
      const keyList = [b.ready(s), ...(deliveryKey === undefined ? [] : [b.seenDelivery(s, deliveryKey)]), ...group.flatMap((l) => [b.seenMessage(s, l.id), b.mailbox(s, l.phone)])]
      const args = [DEDUPE_TTL_SECONDS, deliveryKey === undefined ? '0' : '1', ...group.flatMap((l) => [l.body, l.phone])]
      return await this.redis.chatAccept(keyList.length, ...keyList, ...args)
    }))
    return fresh.flat()
  }

  async due (shard: number, limit: Record<Lane, number>) {
    const [turn, send] = await this.redis.chatDue(b.ready(shard), b.sendable(shard), limit.turn, limit.send)
    return { turn, send }
  }

  private async take (lane: Lane, phone: string, owner: string, leaseMs: number): Promise<Reply> {
    const k = this.laneKeys(lane, phone)
    return await this.redis.chatTake(k.zset, k.owners, k.list, k.meta, phone, owner, leaseMs, lane)
  }

  async takeTurn (phone: string, owner: string, leaseMs: number) {
    return taken(await this.take('turn', phone, owner, leaseMs), (r) => turnWork(phone, r))
  }

  async takeSend (phone: string, owner: string, leaseMs: number): Promise<Taken<SendWork>> {
    return taken(await this.take('send', phone, owner, leaseMs), (r) => ({ phone, entry: r[1] as string, tries: Number(r[2] ?? 0) }))
  }

  async commitTurn (phone: string, owner: string, c: Commit, leaseMs: number) {
    const s = this.shard(phone)
    const r = await this.redis.chatCommit(
      b.session(s, phone), b.mailbox(s, phone), b.outbox(s, phone), b.ready(s), b.owners(s), b.sendable(s),
      phone, owner, c.expected, c.doc ?? '', c.applied.join(APPLIED_SEPARATOR), c.message, leaseMs, SESSION_TTL_MS, ...c.replies
    )
    return next(r, (more) => turnWork(phone, more))
  }

  private async pop (lane: Lane, phone: string, owner: string, head: string, leaseMs: number, dead: DeadLetter | undefined): Promise<Reply> {
    const k = this.laneKeys(lane, phone)
    const s = this.shard(phone)
    return await this.redis.chatPop(k.list, k.zset, k.owners, k.meta, b.dead(s), b.deadIndex(s),
      phone, owner, head, leaseMs, lane, dead?.id ?? '', dead ? JSON.stringify(dead) : '', DEAD_KEPT)
  }

  async sent (phone: string, owner: string, entry: string, leaseMs: number, dead?: DeadLetter) {
    return next(await this.pop('send', phone, owner, entry, leaseMs, dead), (r): SendWork => ({ phone, entry: r[1] as string, tries: 0 }))
  }

  async deadTurn (phone: string, owner: string, letter: DeadLetter, leaseMs: number) {
    return next(await this.pop('turn', phone, owner, letter.payload, leaseMs, letter), (r) => turnWork(phone, r))
  }

  async release (lane: Lane, phone: string, owner: string, delayMs: number, failed: boolean, error?: string) {
    const k = this.laneKeys(lane, phone)
    await this.redis.chatRelease(k.zset, k.owners, k.meta, phone, owner, Math.max(0, Math.round(delayMs)), lane, failed ? '1' : '0', error === undefined ? '0' : '1', error ?? '')
  }

  async renew (lane: Lane, phone: string, owner: string, leaseMs: number) {
    const k = this.laneKeys(lane, phone)
    return (await this.redis.chatRenew(k.zset, k.owners, phone, owner, leaseMs)) === 1
  }

  async pending (phone: string) {
    const s = this.shard(phone)
    const [turn, send] = await Promise.all([this.redis.zscore(b.ready(s), phone), this.redis.zscore(b.sendable(s), phone)])
    return turn !== null || send !== null
  }

  /** One read per shard, side by side: each shard is its own slot, so a cluster takes no pipeline across them. */
  private async everyShard<T> (read: (shard: number) => Promise<T>): Promise<T[]> {
    return await Promise.all(Array.from({ length: this.shards }, async (_, s) => await read(s)))
  }

  async outboxPhones () {
    const counts = await this.everyShard(async (s) => await this.redis.zcard(b.sendable(s)))
    return counts.reduce((a, n) => a + n, 0)
  }

  async deadLetters (limit: number) {
    const records = await this.everyShard(async (s) => {
      const found = await this.redis.zrevrange(b.deadIndex(s), 0, limit - 1)
      return found.length > 0 ? await this.redis.hmget(b.dead(s), ...found) : []
    })
    return records.flat().filter((r): r is string => r !== null).map((r) => JSON.parse(r) as DeadLetter).sort((x, y) => y.at - x.at).slice(0, limit)
  }

  async deadLetter (id: string) {
    const s = shardOfDeadLetter(id)
    if (s === undefined || s >= this.shards) return undefined
    const raw = await this.redis.hget(b.dead(s), id)
    return raw === null ? undefined : JSON.parse(raw) as DeadLetter
  }

  async redrive (id: string) {
    const letter = await this.deadLetter(id)
    if (!letter) return undefined
    const s = shardOfDeadLetter(id) as number
    const k = this.laneKeys(letter.lane, letter.phone)
    const moved = await this.redis.chatRedrive(b.dead(s), b.deadIndex(s), k.list, k.zset, id, letter.phone)
    return moved === null ? undefined : letter
  }

  async enqueue (phone: string, entries: string[]) {
    if (entries.length === 0) return
    const k = this.laneKeys('send', phone)
    await this.redis.chatEnqueue(k.list, k.zset, phone, ...entries)
  }

  async enqueueSystem (phone: string, id: string, entry: string) {
    const s = this.shard(phone)
    return (await this.redis.chatEnqueueSystem(b.systemSent(s, phone, id), b.outbox(s, phone), b.sendable(s), phone, entry, SYSTEM_SENT_TTL_MS)) === 1
  }

  async noteInbound (phones: string[], at: number) {
    // one write per phone, side by side: a batch's phones sit in different slots of a cluster
    await Promise.all([...new Set(phones)].map(async (phone) => await this.redis.set(b.inboundAt(this.shard(phone), phone), at, 'PX', INBOUND_AT_TTL_MS)))
  }

  async lastInbound (phone: string) {
    const raw = await this.redis.get(b.inboundAt(this.shard(phone), phone))
    return raw === null ? undefined : Number(raw)
  }

  async linkResult (phone: string, code: string) {
    return (await this.redis.get(b.linkResult(this.shard(phone), phone, code))) ?? undefined
  }

  async putLinkResult (phone: string, code: string, result: string) {
    await this.redis.set(b.linkResult(this.shard(phone), phone, code), result, 'PX', LINK_RESULT_TTL_MS)
  }
}

export function createChatStore (redis: RedisClient | null, shards: number): ChatStore {
  return redis ? new RedisChatStore(redis, shards) : new MemoryChatStore(shards)
}
