import { defineScript, type ScriptArg } from '../../stores/define-script.ts'
import { NOTIFICATION_DOMAINS, NOTIFICATION_SOURCES } from '../types.ts'

// Lua scripts of the Redis notification store. Every key of the recipient arrives in KEYS, in the order of
// RECIPIENT_KEY_NAMES and then one per domain and one per source (which records a script touches, as in
// mark-all or expiry, is only known inside it, so the records are fields of one hash rather than keys of their
// own). KEYS[1] is the recipient's shard of the expiry registry. ARGV[1] is now (ms), ARGV[2] the recipient id;
// the rest is per script.
//
// all, unread, read, d:<domain>, s:<source> are zsets of ids scored by createdAt; exp scores ids by expiresAt;
// records holds <id>:data, <id>:readAt, <id>:updatedAt, <id>:ext; ext maps an externalId to its id.
export const RECIPIENT_KEY_NAMES = ['registry', 'all', 'unread', 'read', 'exp', 'records', 'ext', 'tmp'] as const

const lua = (items: readonly string[]): string => `{${items.map((i) => `'${i}'`).join(', ')}}`

const PRELUDE = `
local registry, ALL, UNREAD, READ, EXP, RECORDS, EXT, TMP = unpack(KEYS, 1, ${RECIPIENT_KEY_NAMES.length})
local now = tonumber(ARGV[1])
local recipient = ARGV[2]
local DOMAINS = ${lua(NOTIFICATION_DOMAINS)}
local SOURCES = ${lua(NOTIFICATION_SOURCES)}
-- the index zsets by the names a listing filters on
local SETS = {all = ALL, unread = UNREAD, read = READ}
for i, d in ipairs(DOMAINS) do SETS['d:' .. d] = KEYS[${RECIPIENT_KEY_NAMES.length} + i] end
for i, s in ipairs(SOURCES) do SETS['s:' .. s] = KEYS[${RECIPIENT_KEY_NAMES.length} + #DOMAINS + i] end

local function forget(id)
  local ext = redis.call('HGET', RECORDS, id .. ':ext')
  if ext then redis.call('HDEL', EXT, ext) end
  redis.call('HDEL', RECORDS, id .. ':data', id .. ':readAt', id .. ':updatedAt', id .. ':ext')
  for _, k in pairs(SETS) do redis.call('ZREM', k, id) end
end

-- the registry holds the recipient at their earliest expiry, or not at all
local function syncRegistry()
  local nxt = redis.call('ZRANGE', EXP, 0, 0, 'WITHSCORES')
  if nxt[2] then redis.call('ZADD', registry, nxt[2], recipient) else redis.call('ZREM', registry, recipient) end
end

local function purge()
  local ids = redis.call('ZRANGEBYSCORE', EXP, '-inf', now)
  if #ids == 0 then return 0 end
  for _, id in ipairs(ids) do forget(id) end
  redis.call('ZREMRANGEBYSCORE', EXP, '-inf', now)
  syncRegistry()
  return #ids
end

local function fields(id)
  return redis.call('HMGET', RECORDS, id .. ':data', id .. ':readAt', id .. ':updatedAt')
end
`

/** How many keys a recipient's script takes: the named ones, then one per domain and one per source. */
const RECIPIENT_KEYS = RECIPIENT_KEY_NAMES.length + NOTIFICATION_DOMAINS.length + NOTIFICATION_SOURCES.length

/** Every recipient script starts with now (ms) and the recipient id. */
type RecipientArgs<Rest extends readonly ScriptArg[]> = [now: number, recipientId: string, ...rest: Rest]

const recipientScript = <Rest extends readonly ScriptArg[], Result>(name: string, body: string, decode?: (raw: unknown) => Result) =>
  defineScript<RecipientArgs<Rest>, Result>({ name, keys: RECIPIENT_KEYS, lua: `${PRELUDE}\n${body}`, ...(decode ? { decode } : {}) })

/** A record's three stored parts: its fixed JSON, readAt ('' when unread), updatedAt. */
export type StoredFields = [data: string, readAt: string, updatedAt: string]

/** ARGV[3..10]: id, externalId, createdAtMs, expiresAtMs, domain, source, data, createdAt ISO. Answers {created 1|0, unread}. */
export const create = recipientScript<[
  id: string, externalId: string, createdAtMs: number, expiresAtMs: number, domain: string, source: string, data: string, createdAt: string
], [number, number]>('notificationsCreate', `
purge()
local id, ext = ARGV[3], ARGV[4]
if redis.call('HEXISTS', EXT, ext) == 1 then return {0, redis.call('ZCARD', UNREAD)} end
redis.call('HSET', RECORDS, id .. ':data', ARGV[9], id .. ':ext', ext, id .. ':readAt', '', id .. ':updatedAt', ARGV[10])
redis.call('HSET', EXT, ext, id)
for _, k in ipairs({ALL, UNREAD, SETS['d:' .. ARGV[7]], SETS['s:' .. ARGV[8]]}) do redis.call('ZADD', k, ARGV[5], id) end
redis.call('ZADD', EXP, ARGV[6], id)
redis.call('ZADD', registry, 'LT', ARGV[6], recipient)
return {1, redis.call('ZCARD', UNREAD)}
`)

/**
 * ARGV[3] offset, ARGV[4] limit, ARGV[5..] the names of the index zsets to intersect (none: all).
 * Answers {total, data1, readAt1, updatedAt1, ...}: one zset is ranged directly; several are intersected
 * into the scratch key bounded by the smallest of them.
 */
export const list = recipientScript<[offset: number, limit: number, ...sets: string[]], { total: number, records: StoredFields[] }>('notificationsList', `
purge()
local sets = {}
for i = 5, #ARGV do sets[#sets + 1] = SETS[ARGV[i]] end
if #sets == 0 then sets[1] = ALL end
local src = sets[1]
if #sets > 1 then
  src = TMP
  local args = {src, #sets}
  for _, k in ipairs(sets) do args[#args + 1] = k end
  args[#args + 1] = 'AGGREGATE'
  args[#args + 1] = 'MAX'
  redis.call('ZINTERSTORE', unpack(args))
end
local total = redis.call('ZCARD', src)
local out = {total}
local offset, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
if limit > 0 and offset < total then
  for _, id in ipairs(redis.call('ZREVRANGE', src, offset, offset + limit - 1)) do
    local r = fields(id)
    if r[1] then
      out[#out + 1] = r[1]
      out[#out + 1] = r[2]
      out[#out + 1] = r[3]
    end
  end
end
if #sets > 1 then redis.call('DEL', src) end
return out
`, (raw) => {
  const [total, ...fields] = raw as [number, ...string[]]
  const records: StoredFields[] = []
  for (let i = 0; i + 2 < fields.length; i += 3) records.push([fields[i] as string, fields[i + 1] as string, fields[i + 2] as string])
  return { total, records }
})

export const unreadCount = recipientScript<[], number>('notificationsUnread', `
purge()
return redis.call('ZCARD', UNREAD)
`)

/** ARGV[3] externalId, ARGV[4] now ISO. Answers {data, readAt, updatedAt, unreadCount} or nil. */
export const markRead = recipientScript<[externalId: string, at: string], [...StoredFields, number] | null>('notificationsMarkRead', `
purge()
local id = redis.call('HGET', EXT, ARGV[3])
if not id then return false end
local r = fields(id)
if not r[1] then return false end
if r[2] == '' then
  redis.call('HSET', RECORDS, id .. ':readAt', ARGV[4], id .. ':updatedAt', ARGV[4])
  redis.call('ZREM', UNREAD, id)
  redis.call('ZADD', READ, redis.call('ZSCORE', ALL, id), id)
  r[2] = ARGV[4]
  r[3] = ARGV[4]
end
return {r[1], r[2], r[3], redis.call('ZCARD', UNREAD)}
`)

/** ARGV[3] now ISO. Answers how many were marked. */
export const markAllRead = recipientScript<[at: string], number>('notificationsMarkAll', `
purge()
local entries = redis.call('ZRANGE', UNREAD, 0, -1, 'WITHSCORES')
for i = 1, #entries, 2 do
  local id = entries[i]
  if redis.call('HEXISTS', RECORDS, id .. ':data') == 1 then redis.call('HSET', RECORDS, id .. ':readAt', ARGV[3], id .. ':updatedAt', ARGV[3]) end
  redis.call('ZADD', READ, entries[i + 1], id)
end
redis.call('DEL', UNREAD)
return #entries / 2
`)

/** The cleanup job's step for one recipient: purge, and always leave the registry right. */
export const purge = recipientScript<[], number>('notificationsPurge', `
local purged = purge()
syncRegistry()
return purged
`)

/**
 * KEYS[1] a cursor key, ARGV[1] a feed position, ARGV[2] when the broadcasts it covers have all expired (ms).
 * The position only moves forward and its expiry only later (measured on Redis' clock, as PTTL is).
 */
export const advanceCursor = defineScript<[seq: number, untilMs: number], unknown>({
  name: 'notificationsCursor',
  keys: 1,
  lua: `
local seq, untilMs = tonumber(ARGV[1]), tonumber(ARGV[2])
if seq > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], seq, 'KEEPTTL') end
local left = redis.call('PTTL', KEYS[1])
local t = redis.call('TIME')
if left < 0 or tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + left < untilMs then redis.call('PEXPIREAT', KEYS[1], untilMs) end
return 1`,
})

// A role's feed: KEYS[1] ids by position, KEYS[2] the same ids by expiry; ARGV[1] now (ms).
const PRUNE_FEED = `
local now = tonumber(ARGV[1])
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do redis.call('ZREM', KEYS[1], id) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
`

/** Drops the role feed's expired broadcasts. */
export const pruneBroadcasts = defineScript<[now: number], unknown>({ name: 'notificationsPruneBroadcasts', keys: 2, lua: `${PRUNE_FEED}\nreturn 1` })

/**
 * Prunes the feed, then appends a broadcast: KEYS[3] the tenant's position counter, KEYS[4] the record;
 * ARGV[2] its id, ARGV[3] its JSON, ARGV[4] its expiry (ms). Answers its position.
 */
export const addBroadcast = defineScript<[now: number, id: string, json: string, expiresAtMs: number], number>({
  name: 'notificationsAddBroadcast',
  keys: 4,
  lua: `
${PRUNE_FEED}
local seq = redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[4], ARGV[3], 'PXAT', ARGV[4])
redis.call('ZADD', KEYS[1], seq, ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
return seq`,
})
