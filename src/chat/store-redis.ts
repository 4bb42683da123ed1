import type { RedisClient } from '../stores/redis-client.ts'
import { keys } from '../stores/keys.ts'
import { shardOf } from '../stores/shards.ts'
import { defineScript, type ScriptArg } from '../stores/define-script.ts'
import { historyArgs, MemoryInboxStore, RECORD_LUA, type InboxLimits, type InboxStore } from './inbox/store.ts'
import { packSession, unpackSession } from './session-codec.ts'
import {
  appliedMark, byPhone, DEAD_KEPT, DEDUPE_TTL_SECONDS, LINK_RESULT_TTL_MS, SYSTEM_SENT_TTL_MS, MemoryChatStore, SESSION_TTL_MS, shardOfDeadLetter,
  type AcceptOptions, type ChatStore, type Commit, type Committed, type DeadLetter, type Lane, type Letter, type Next, type SendWork,
  type Taken, type TurnWork, type ViewReader, type Waiting,
} from './store.ts'

// The chat store on Redis. Every script touches the keys of one phone and of its shard only, all under the
// shard's hash tag, and receives them all in KEYS. Times come from the Redis server, so that leases mean the
// same on every instance whatever their clocks.

const NOW_MS = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)"

// The phone's record is one string, not a hash: a session document is longer than the 64 bytes up to which
// Redis keeps a hash compact (hash-max-listpack-value), and a string is about half the memory of the same
// fields in a full hash. The string is a JSON envelope, a newline, then the session document as packed by
// session-codec.ts (no escaping: neither form holds a raw newline). Envelope fields: v (compare-and-set
// version), p (applied inbound ids, newest first: their marks, 12 hex digits each, as 8 base64url characters,
// one after the other; `a`, a JSON array of the marks or ids, in records of the first version), t (tries at
// the mailbox head since the last commit), e (its last error), i (epoch ms of the last inbound message), m and
// b (de-duplication markers, below). Saved with its time to live kept.
const RECORD = `
local function load (key)
  local raw = redis.call('GET', key)
  if not raw then return {} end
  local nl = string.find(raw, '\\n', 1, true)
  local r = cjson.decode(string.sub(raw, 1, nl - 1))
  if nl < #raw then r.d = string.sub(raw, nl + 1) end
  return r
end
local function save (key, r)
  local d = r.d
  r.d = nil
  redis.call('SET', key, cjson.encode(r) .. '\\n' .. (d or ''), 'KEEPTTL')
  r.d = d
end
-- the applied marks as the store reads them: '+' and the packed marks, or '-' and the first version's ids, one
-- per line (each form has its own prefix: an id of the first version may begin with anything)
local function applied (r)
  if r.p then return '+' .. r.p end
  if r.a then return '-' .. table.concat(r.a, '\\n') end
  return ''
end`

// Puts the phone in a lane's zset (due now) unless it is there; 1 when nobody is on it (it was not there, or
// it is due with no lease and no backoff: its wake-up was lost), so that the caller tells a runner.
const WAKE = (zset: string) => `(function ()
  local at = redis.call('ZSCORE', ${zset}, ARGV[1])
  if not at then
    redis.call('ZADD', ${zset}, now, ARGV[1])
    return 1
  end
  if tonumber(at) <= now then return 1 end
  return 0
end)()`

/** A script's reply: a kind, then its fields (strings, or Redis nil). */
type Reply = Array<string | number | null>

// After the head was removed: end the lease when the queue is empty, else keep it for the next head and, for
// turns, answer that head with the session it runs against. Every reply of work has one layout: kind, woke (the
// commit's outbox: '1' nobody is on it, 'leased' leased to the committing instance's sender), the outbox head
// and its tries when leased, then the lane's work.
// KEYS[list], KEYS[zset], KEYS[owners], KEYS[meta].
const NEXT = (list: number, zset: number, owners: number, meta: number, lane: string, leaseMs: string) => `
local head = redis.call('LINDEX', KEYS[${list}], 0)
if not head then
  redis.call('ZREM', KEYS[${zset}], ARGV[1])
  redis.call('HDEL', KEYS[${owners}], ARGV[1])
  return {'done', woke, sendHead, sendTries}
end
redis.call('ZADD', KEYS[${zset}], 'XX', now + tonumber(${leaseMs}), ARGV[1])
if ${lane} == 'turn' then
  local r = load(KEYS[${meta}])
  r.t = 1
  r.e = nil
  save(KEYS[${meta}], r)
  return {'more', woke, sendHead, sendTries, head, tostring(r.v or 0), r.d or '', applied(r), '1', ''}
end
return {'more', woke, sendHead, sendTries, head, '0'}`

// De-duplication markers live in the phone's record: per message id and delivery key the phone saw, a tag
// (the first 48 bits of the SHA-1 of the id, as 8 base64url characters: a collision within one phone's day is
// about one in 10^14) and its age in seconds (base 36) at the record's moment `b` (epoch s), in field `m` as
// `<tag><age>;` (about 11 B each; the newest are the youngest, so their ages are short). They are pruned as they
// pass DEDUPE_TTL_SECONDS. One small field instead of a key per marker keeps an idle phone's Redis footprint
// small. Field `s` of the first version (`<12 hex digits>=<epoch s>;`) still reads and is rewritten as `m`.
const MARKERS = `
local B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
local function tagOf (hex)
  local out = {}
  for i = 1, 12, 3 do
    local n = tonumber(string.sub(hex, i, i + 2), 16)
    local hi, lo = math.floor(n / 64), n % 64
    out[#out + 1] = string.sub(B64, hi + 1, hi + 1) .. string.sub(B64, lo + 1, lo + 1)
  end
  return table.concat(out)
end
local function base36 (n)
  if n <= 0 then return '0' end
  local out = ''
  while n > 0 do
    local d = n % 36
    out = string.sub('0123456789abcdefghijklmnopqrstuvwxyz', d + 1, d + 1) .. out
    n = math.floor(n / 36)
  end
  return out
end
-- each marker of the record: fn(tag, epoch s)
local function eachMarker (r, fn)
  for tag, at in string.gmatch(r.s or '', '(%x+)=(%d+);') do fn(tagOf(tag), tonumber(at)) end
  for entry in string.gmatch(r.m or '', '([^;]+);') do fn(string.sub(entry, 1, 8), r.b - tonumber(string.sub(entry, 9), 36)) end
end`

// KEYS session, mailbox, ready; ARGV phone, dedupeSeconds, at ('' = none), deliveryKey ('' = none), then id_i, body_i
const acceptScript = defineScript<[phone: string, dedupeSeconds: number, at: string, deliveryKey: string, ...idsAndBodies: string[]], [stored: number, due: number]>({
  name: 'chatAccept',
  keys: 3,
  lua: `${NOW_MS}${RECORD}${MARKERS}
local r = load(KEYS[1])
local sec = tonumber(t[1])
local cutoff = sec - tonumber(ARGV[2])
local marks, kept = {}, {}
eachMarker(r, function (tag, at)
  if at > cutoff and not marks[tag] then
    marks[tag] = true
    kept[#kept + 1] = tag .. base36(sec - at) .. ';'
  end
end)
local function fresh (s)
  local tag = tagOf(redis.sha1hex(s))
  if marks[tag] then return false end
  marks[tag] = true
  kept[#kept + 1] = tag .. '0;'
  return true
end
local stored = 0
if ARGV[4] == '' or fresh('k' .. ARGV[4]) then
  for i = 5, #ARGV, 2 do
    if fresh('m' .. ARGV[i]) then
      redis.call('RPUSH', KEYS[2], ARGV[i + 1])
      stored = stored + 1
    end
  end
end
r.s = nil
if #kept > 0 then r.m, r.b = table.concat(kept), sec else r.m, r.b = nil, nil end
if ARGV[3] ~= '' then r.i = ARGV[3] end
save(KEYS[1], r)
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) * 1000 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 1000) end
local due = 0
if stored > 0 then due = ${WAKE('KEYS[3]')} end
return {stored, due}`,
})

// KEYS ready, sendable; ARGV turnLimit, sendLimit: each lane's phones with their wait in ms, in one command
const dueScript = defineScript<[turnLimit: number, sendLimit: number], [Reply, Reply]>({
  name: 'chatDue',
  keys: 2,
  lua: `${NOW_MS}
local function due (key, limit)
  local found = {}
  if tonumber(limit) == 0 then return found end
  local r = redis.call('ZRANGE', key, '-inf', '+inf', 'BYSCORE', 'LIMIT', 0, limit, 'WITHSCORES')
  for i = 1, #r, 2 do
    found[#found + 1] = r[i]
    found[#found + 1] = math.max(0, tonumber(r[i + 1]) - now)
  end
  return found
end
return {due(KEYS[1], ARGV[1]), due(KEYS[2], ARGV[2])}`,
})

// KEYS zset, owners, list, meta; ARGV phone, owner, leaseMs, lane
const takeScript = defineScript<[phone: string, owner: string, leaseMs: number, lane: Lane], Reply>({
  name: 'chatTake',
  keys: 4,
  lua: `${NOW_MS}${RECORD}
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
  local r = load(KEYS[4])
  r.t = (r.t or 0) + 1
  save(KEYS[4], r)
  return {'ok', '0', '', '0', head, tostring(r.v or 0), r.d or '', applied(r), tostring(r.t), r.e or ''}
end
return {'ok', '0', '', '0', head, redis.call('HGET', KEYS[4], ARGV[1]) or '0'}`,
})

// KEYS session, mailbox, outbox, ready, owners, sendable, senders, sendTries, history, conversation, then the
// link results to drop; ARGV phone, owner, expected, doc ('' = ack only), applied (packed), message, leaseMs,
// ttlMs, sender ('' = none: lease the outbox to it when nobody is on it, saving the sender its take), the count
// of replies, the replies, then the turn's record for the history (historyArgs; its entry '' = none)
const commitScript = defineScript<[phone: string, owner: string, expected: number, doc: string, applied: string, message: string, leaseMs: number, ttlMs: number, sender: string, count: number, ...rest: ScriptArg[]], Reply>({
  name: 'chatCommit',
  keys: 'list',
  lua: `${NOW_MS}${RECORD}${RECORD_LUA}
if redis.call('HGET', KEYS[5], ARGV[1]) ~= ARGV[2] then return {'lost'} end
local due = redis.call('ZSCORE', KEYS[4], ARGV[1])
if not due or tonumber(due) <= now then return {'lost'} end
if redis.call('LINDEX', KEYS[2], 0) ~= ARGV[6] then return {'lost'} end
local r = load(KEYS[1])
if tostring(r.v or 0) ~= ARGV[3] then return {'lost'} end
if ARGV[4] ~= '' then
  r.v = (r.v or 0) + 1
  r.d = ARGV[4]
  r.p = ARGV[5]
  r.a = nil
end
r.t = nil
r.e = nil
save(KEYS[1], r)
redis.call('PEXPIRE', KEYS[1], ARGV[8])
local replies = tonumber(ARGV[10])
if ARGV[11 + replies] ~= '' then record(KEYS[9], KEYS[10], 11 + replies) end
if #KEYS > 10 then redis.call('DEL', unpack(KEYS, 11)) end
local woke, sendHead, sendTries = 0, '', '0'
if replies > 0 then
  for i = 11, 10 + replies do redis.call('RPUSH', KEYS[3], ARGV[i]) end
  woke = ${WAKE('KEYS[6]')}
  if woke == 1 and ARGV[9] ~= '' then
    redis.call('ZADD', KEYS[6], 'XX', now + tonumber(ARGV[7]), ARGV[1])
    redis.call('HSET', KEYS[7], ARGV[1], ARGV[9])
    woke = 'leased'
    sendHead = redis.call('LINDEX', KEYS[3], 0)
    sendTries = redis.call('HGET', KEYS[8], ARGV[1]) or '0'
  end
end
redis.call('LPOP', KEYS[2])
${NEXT(2, 4, 5, 1, "'turn'", 'ARGV[7]')}`,
})

// Removes the head the owner holds, optionally into the dead letters.
// KEYS list, zset, owners, meta, dead, deadIndex; ARGV phone, owner, head, leaseMs, lane, deadId ('' = none), deadRecord, deadKept
const popScript = defineScript<[phone: string, owner: string, head: string, leaseMs: number, lane: Lane, deadId: string, deadRecord: string, deadKept: number], Reply>({
  name: 'chatPop',
  keys: 6,
  lua: `${NOW_MS}${RECORD}
local woke, sendHead, sendTries = 0, '', '0'
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
  local r = load(KEYS[4])
  r.t = nil
  r.e = nil
  save(KEYS[4], r)
else
  redis.call('HDEL', KEYS[4], ARGV[1])
end
${NEXT(1, 2, 3, 4, 'ARGV[5]', 'ARGV[4]')}`,
})

// KEYS zset, owners, meta; ARGV phone, owner, delayMs, lane, failed ('1'/'0'), hasError, error
const releaseScript = defineScript<[phone: string, owner: string, delayMs: number, lane: Lane, failed: string, hasError: string, error: string], number>({
  name: 'chatRelease',
  keys: 3,
  lua: `${NOW_MS}${RECORD}
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[4] == 'turn' then
  local r = load(KEYS[3])
  if ARGV[5] == '0' and (r.t or 0) > 0 then r.t = r.t - 1 end
  if ARGV[6] == '1' then r.e = ARGV[7] end
  save(KEYS[3], r)
elseif ARGV[5] == '1' then
  redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
end
return 1`,
})

// KEYS zset, owners; ARGV phone, owner, leaseMs
const renewScript = defineScript<[phone: string, owner: string, leaseMs: number], number>({
  name: 'chatRenew',
  keys: 2,
  lua: `${NOW_MS}
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) <= now then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
return 1`,
})

// KEYS dead, deadIndex, list, zset; ARGV id, phone
const redriveScript = defineScript<[id: string, phone: string], string | null>({
  name: 'chatRedrive',
  keys: 4,
  lua: `${NOW_MS}
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('RPUSH', KEYS[3], cjson.decode(record).payload)
redis.call('ZADD', KEYS[4], 'NX', now, ARGV[2])
return record`,
})

// KEYS outbox, sendable; ARGV phone, entries...
const enqueueScript = defineScript<[phone: string, ...entries: string[]], number>({
  name: 'chatEnqueue',
  keys: 2,
  lua: `${NOW_MS}
for i = 2, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
redis.call('ZADD', KEYS[2], 'NX', now, ARGV[1])
return 1`,
})

// KEYS sent, outbox, sendable; ARGV phone, entry, ttlMs: the id's marker and the entry together, or neither
const enqueueSystemScript = defineScript<[phone: string, entry: string, ttlMs: number], number>({
  name: 'chatEnqueueSystem',
  keys: 3,
  lua: `${NOW_MS}
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[3]) then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], 'NX', now, ARGV[1])
return 1`,
})

// KEYS instances (hash owner -> alive until, epoch ms); ARGV owner, ttlMs ('0' = leaving): the owners whose
// time ran out, removed here so that one instance only looks for their phones
const heartbeatScript = defineScript<[owner: string, ttlMs: number], string[]>({
  name: 'chatHeartbeat',
  keys: 1,
  lua: `${NOW_MS}
local gone = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if all[i] ~= ARGV[1] and tonumber(all[i + 1]) <= now then gone[#gone + 1] = all[i] end
end
if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
return gone`,
})

/** The envelope of a phone's record (the part before the session document). */
export const envelopeOf = (record: string): { v?: number, i?: string } => JSON.parse(record.slice(0, record.indexOf('\n')))

const b = keys.chat.bot
const APPLIED_SEPARATOR = '\n'
const PACKED_MARKS = '+'
const FIRST_VERSION_IDS = '-'
const MARK_CHARS = 8

const packMarks = (applied: readonly string[]): string => applied.map((id) => Buffer.from(appliedMark(id), 'hex').toString('base64url')).join('')

function appliedOf (stored: string): string[] {
  if (stored.startsWith(FIRST_VERSION_IDS)) {
    const ids = stored.slice(FIRST_VERSION_IDS.length)
    return ids ? ids.split(APPLIED_SEPARATOR) : []
  }
  if (!stored.startsWith(PACKED_MARKS)) return []
  const marks: string[] = []
  for (let i = PACKED_MARKS.length; i < stored.length; i += MARK_CHARS) marks.push(Buffer.from(stored.slice(i, i + MARK_CHARS), 'base64url').toString('hex'))
  return marks
}
const str = (v: string | number | null | undefined): string => v === null || v === undefined ? '' : String(v)

function turnWork (phone: string, r: Reply): TurnWork {
  const [, , , , message, v, doc, applied, tries, err] = r.map(str)
  return {
    phone,
    message: message as string,
    session: { version: Number(v || 0), doc: doc ? unpackSession(doc) : undefined, applied: appliedOf(applied ?? '') },
    tries: Number(tries || 1),
    lastError: err || undefined,
  }
}

const sendWork = (phone: string, r: Reply): SendWork => ({ phone, entry: str(r[4]), tries: Number(r[5] ?? 0) })

function next<T> (r: Reply, work: (r: Reply) => T): Next<T> {
  if (r[0] === 'more') return { kind: 'more', work: work(r) }
  return { kind: r[0] === 'done' ? 'done' : 'lost' }
}

function taken<T> (r: Reply, work: (r: Reply) => T): Taken<T> {
  if (r[0] === 'ok') return { kind: 'ok', work: work(r) }
  if (r[0] === 'busy') return { kind: 'busy', inMs: Number(r[1]) }
  return { kind: 'empty' }
}

function waiting (r: Reply): Waiting[] {
  const found: Waiting[] = []
  for (let i = 0; i < r.length; i += 2) found.push({ phone: str(r[i]), inMs: Number(r[i + 1]) })
  return found
}

export class RedisChatStore implements ChatStore {
  /**
   * The turn's view is read beside the take on one Redis only: sent behind the take on the same connection, it
   * runs after it there, so it sees whatever the phone's previous turn wrote before committing (but for the take
   * sent again as EVAL once after a Redis restart emptied the script cache, behind them). A cluster keeps
   * those keys on other nodes, in no order with the take: the turn reads its view once the take answered.
   */
  private readonly readView: ViewReader | undefined

  /** `history`: the limits of the conversation history its commits record (the inbox store's). */
  constructor (private readonly redis: RedisClient, readonly shards: number, private readonly history?: InboxLimits, readView?: ViewReader) {
    this.readView = redis.isCluster ? undefined : readView
  }

  private shard (phone: string): number { return shardOf(phone, this.shards) }

  private laneKeys (lane: Lane, phone: string): { zset: string, owners: string, list: string, meta: string } {
    const s = this.shard(phone)
    return lane === 'turn'
      ? { zset: b.ready(s), owners: b.owners(s), list: b.mailbox(s, phone), meta: b.session(s, phone) }
      : { zset: b.sendable(s), owners: b.senders(s), list: b.outbox(s, phone), meta: b.sendTries(s) }
  }

  /** One script per phone, side by side: a delivery's phones sit in different slots of a cluster. */
  async accept (letters: Letter[], options: AcceptOptions = {}) {
    const results = await Promise.all([...byPhone(letters)].map(async ([phone, group]) => {
      const s = this.shard(phone)
      const [stored, due] = await acceptScript(this.redis, [b.session(s, phone), b.mailbox(s, phone), b.ready(s)],
        phone, DEDUPE_TTL_SECONDS, options.at === undefined ? '' : String(options.at), options.deliveryKey ?? '', ...group.flatMap((l) => [l.id, l.body]))
      return { phone, stored, due: due === 1 }
    }))
    return { stored: results.reduce((n, r) => n + r.stored, 0), due: results.filter((r) => r.due).map((r) => r.phone) }
  }

  async due (shard: number, limit: Record<Lane, number>) {
    const [turn, send] = await dueScript(this.redis, [b.ready(shard), b.sendable(shard)], limit.turn, limit.send)
    return { turn: waiting(turn), send: waiting(send) }
  }

  private async take (lane: Lane, phone: string, owner: string, leaseMs: number): Promise<Reply> {
    const k = this.laneKeys(lane, phone)
    return await takeScript(this.redis, [k.zset, k.owners, k.list, k.meta], phone, owner, leaseMs, lane)
  }

  async takeTurn (phone: string, owner: string, leaseMs: number) {
    const take = this.take('turn', phone, owner, leaseMs)
    const view = this.readView?.(phone)
    // a take that finds no work drops the view, and its failure with it
    view?.catch(() => {})
    return taken(await take, (r) => {
      const work = turnWork(phone, r)
      return view ? { ...work, session: { ...work.session, view } } : work
    })
  }

  async takeSend (phone: string, owner: string, leaseMs: number): Promise<Taken<SendWork>> {
    return taken(await this.take('send', phone, owner, leaseMs), (r) => sendWork(phone, r))
  }

  async commitTurn (phone: string, owner: string, c: Commit, leaseMs: number): Promise<Committed> {
    const s = this.shard(phone)
    const links = (c.linkCodes ?? []).map((code) => b.linkResult(s, phone, code))
    const r = await commitScript(this.redis,
      [b.session(s, phone), b.mailbox(s, phone), b.outbox(s, phone), b.ready(s), b.owners(s), b.sendable(s), b.senders(s), b.sendTries(s), b.history(s, phone), b.conversation(s, phone), ...links],
      phone, owner, c.expected, c.doc ? packSession(c.doc) : '', packMarks(c.applied), c.message, leaseMs, SESSION_TTL_MS, c.sender ?? '', c.replies.length, ...c.replies, ...(c.record ? historyArgs(c.record, this.recorder()) : ['']))
    const result = next(r, (more) => turnWork(phone, more))
    if (r[1] === 'leased') return { ...result, send: { phone, entry: str(r[2]), tries: Number(r[3]) } }
    return Number(r[1]) === 1 ? { ...result, senderDue: true } : result
  }

  private recorder (): InboxLimits {
    if (!this.history) throw new Error('this chat store keeps no conversation history')
    return this.history
  }

  private async pop (lane: Lane, phone: string, owner: string, head: string, leaseMs: number, dead: DeadLetter | undefined): Promise<Reply> {
    const k = this.laneKeys(lane, phone)
    const s = this.shard(phone)
    return await popScript(this.redis, [k.list, k.zset, k.owners, k.meta, b.dead(s), b.deadIndex(s)],
      phone, owner, head, leaseMs, lane, dead?.id ?? '', dead ? JSON.stringify(dead) : '', DEAD_KEPT)
  }

  async sent (phone: string, owner: string, entry: string, leaseMs: number, dead?: DeadLetter) {
    return next(await this.pop('send', phone, owner, entry, leaseMs, dead), (r) => sendWork(phone, r))
  }

  async deadTurn (phone: string, owner: string, letter: DeadLetter, leaseMs: number) {
    return next(await this.pop('turn', phone, owner, letter.payload, leaseMs, letter), (r) => turnWork(phone, r))
  }

  async release (lane: Lane, phone: string, owner: string, delayMs: number, failed: boolean, error?: string) {
    const k = this.laneKeys(lane, phone)
    await releaseScript(this.redis, [k.zset, k.owners, k.meta], phone, owner, Math.max(0, Math.round(delayMs)), lane, failed ? '1' : '0', error === undefined ? '0' : '1', error ?? '')
  }

  async renew (lane: Lane, phone: string, owner: string, leaseMs: number) {
    const k = this.laneKeys(lane, phone)
    return (await renewScript(this.redis, [k.zset, k.owners], phone, owner, leaseMs)) === 1
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
    const moved = await redriveScript(this.redis, [b.dead(s), b.deadIndex(s), k.list, k.zset], id, letter.phone)
    return moved === null ? undefined : letter
  }

  async enqueue (phone: string, entries: string[]) {
    if (entries.length === 0) return
    const k = this.laneKeys('send', phone)
    await enqueueScript(this.redis, [k.list, k.zset], phone, ...entries)
  }

  async enqueueSystem (phone: string, id: string, entry: string) {
    const s = this.shard(phone)
    return (await enqueueSystemScript(this.redis, [b.systemSent(s, phone, id), b.outbox(s, phone), b.sendable(s)], phone, entry, SYSTEM_SENT_TTL_MS)) === 1
  }

  async lastInbound (phone: string) {
    const raw = await this.redis.get(b.session(this.shard(phone), phone))
    const at = raw === null ? undefined : envelopeOf(raw).i
    return at === undefined ? undefined : Number(at)
  }

  async linkResult (phone: string, code: string) {
    return (await this.redis.get(b.linkResult(this.shard(phone), phone, code))) ?? undefined
  }

  async putLinkResult (phone: string, code: string, result: string) {
    await this.redis.set(b.linkResult(this.shard(phone), phone, code), result, 'PX', LINK_RESULT_TTL_MS)
  }

  async heartbeat (owner: string, ttlMs: number) { return await heartbeatScript(this.redis, [keys.chat.instances()], owner, ttlMs) }
  async leave (owner: string) { await heartbeatScript(this.redis, [keys.chat.instances()], owner, 0) }
}

/** The chat store whose commits record turns in `inbox`'s conversation history. */
export function createChatStore (redis: RedisClient | null, shards: number, inbox: InboxStore, readView?: ViewReader): ChatStore {
  return redis ? new RedisChatStore(redis, shards, inbox.limits, readView) : new MemoryChatStore(shards, Date.now, inbox instanceof MemoryInboxStore ? inbox : undefined)
}
