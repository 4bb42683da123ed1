import type { RedisClient } from '../../stores/redis-client.ts'
import { parseHandoff, type Handoff } from '../../../machines/handoff.ts'
import { keys } from '../../stores/keys.ts'
import { shardOf } from '../../stores/shards.ts'
import type { HistoryMessage, InboxLimits, Recorded } from '../store/port.ts'
import { handoffCas, historyArgs, record } from '../store/scripts.ts'
import { decodeHistory } from './history-codec.ts'

// What staff read of a club's conversation with a phone: its messages (newest first, capped, gone after the
// history window), a small record for the staff's list (last activity, unread, the handoff flag) and a per-club
// index by last activity, so a club's conversations are listed without a scan. A phone talking to two clubs has
// two conversations that share nothing: each club's keys name the club and the phone, under the phone's shard
// tag with its chat session, so a turn's messages are recorded by the turn's own commit (src/chat/store/redis.ts,
// with scripts/includes/history.lua), exactly once per committed turn, in the conversation of the session's club.
// The club index has its own tag and is written beside it, so it may lag. The history's entries are compact
// (history-codec.ts); the record keeps no copy of the last message (the history's newest is it), so that its
// fields stay short and Redis keeps it a small listpack.

export interface Conversation {
  phone: string
  tenantId: string
  last: HistoryMessage | undefined
  lastAt: number
  lastInboundAt: number | undefined
  unread: number
  handoff: Handoff | undefined
}

/** A club's conversation with a phone. */
export interface ConversationRef { tenantId: string, phone: string }

export interface InboxStore {
  readonly limits: InboxLimits
  /** Appends messages (oldest first) to the club's conversation with the phone and to the club's index. */
  record (phone: string, tenantId: string, messages: HistoryMessage[]): Promise<void>
  /** Moves the phone up its club's index: sent, not awaited, beside the commit that recorded its turn. */
  index (phone: string, recorded: Recorded): Promise<void>
  conversation (tenantId: string, phone: string): Promise<Conversation | undefined>
  /** The conversation's handoff flag only (what a turn checks), without reading its messages. */
  handoffOf (tenantId: string, phone: string): Promise<Handoff | undefined>
  history (tenantId: string, phone: string, offset: number, limit: number): Promise<HistoryMessage[]>
  /** The club's phones, latest activity first. */
  clubPhones (tenantId: string, offset: number, limit: number): Promise<string[]>
  clubSize (tenantId: string): Promise<number>
  markRead (tenantId: string, phone: string): Promise<void>
  /** Compare-and-set of the handoff flag: false when it is no longer `expected`. */
  setHandoff (tenantId: string, phone: string, expected: Handoff | undefined, next: Handoff | undefined): Promise<boolean>
  /** Conversations of a shard whose handoff request passed its deadline. */
  dueHandoffs (shard: number, now: number, limit: number): Promise<ConversationRef[]>
  /** The earliest deadline (epoch ms) of a shard's handoff requests; undefined when none waits. */
  nextHandoffDeadline (shard: number): Promise<number | undefined>
  /** Erases the club's conversation with the phone (messages, record, handoff deadline, index entry); false when there was none. */
  forget (tenantId: string, phone: string): Promise<boolean>
}

/** The shard's handoff index names a conversation as '<tenantId>:<phone>' (a club id has no ':'). */
const dueMember = (tenantId: string, phone: string): string => `${tenantId}:${phone}`
function dueRef (member: string): ConversationRef | undefined {
  const at = member.indexOf(':')
  return at > 0 ? { tenantId: member.slice(0, at), phone: member.slice(at + 1) } : undefined
}

const encode = (flag: Handoff | undefined): string => flag ? JSON.stringify(flag) : ''

function conversationOf (phone: string, h: Record<string, string>, last: HistoryMessage | undefined): Conversation | undefined {
  if (!h.tenantId) return undefined
  return {
    phone,
    tenantId: h.tenantId,
    last,
    lastAt: Number(h.lastAt ?? 0),
    lastInboundAt: h.lastInboundAt ? Number(h.lastInboundAt) : undefined,
    unread: Number(h.unread ?? 0),
    handoff: parseHandoff(h.handoff),
  }
}

const b = keys.chat.bot

export class RedisInboxStore implements InboxStore {
  constructor (private readonly redis: RedisClient, private readonly shards: number, readonly limits: InboxLimits, private readonly now: () => number) {}

  private keysOf (tenantId: string, phone: string) {
    const s = shardOf(phone, this.shards)
    return { history: b.history(s, tenantId, phone), conversation: b.conversation(s, tenantId, phone), due: b.handoffDue(s) }
  }

  async record (phone: string, tenantId: string, messages: HistoryMessage[]) {
    if (messages.length === 0) return
    const k = this.keysOf(tenantId, phone)
    const recorded = { tenantId, messages }
    await Promise.all([record(this.redis, [k.history, k.conversation], ...historyArgs(recorded, this.limits)), this.index(phone, recorded)])
  }

  async index (phone: string, { tenantId, messages }: Recorded) {
    // no MULTI: two commands the client pipelines into the socket write of what was sent in the same tick
    const index = keys.chat.clubConversations(tenantId)
    await Promise.all([
      this.redis.zadd(index, (messages.at(-1) as HistoryMessage).at, phone),
      this.redis.zremrangebyscore(index, '-inf', this.now() - this.limits.historyMs),
    ])
  }

  async conversation (tenantId: string, phone: string) {
    const k = this.keysOf(tenantId, phone)
    const [h, newest] = await Promise.all([this.redis.hgetall(k.conversation), this.redis.lindexBuffer(k.history, 0)])
    return conversationOf(phone, h, newest ? decodeHistory(newest)[0] : undefined)
  }

  async handoffOf (tenantId: string, phone: string) {
    return parseHandoff((await this.redis.hget(this.keysOf(tenantId, phone).conversation, 'handoff')) ?? undefined)
  }

  async history (tenantId: string, phone: string, offset: number, limit: number) {
    // an entry holds one message or more: the first offset + limit entries hold the page
    const entries = await this.redis.lrangeBuffer(this.keysOf(tenantId, phone).history, 0, Math.min(offset + limit, this.limits.historyMax) - 1)
    const since = this.now() - this.limits.historyMs
    return entries.flatMap(decodeHistory).slice(0, this.limits.historyMax).slice(offset, offset + limit).filter((m) => m.at > since)
  }

  async clubPhones (tenantId: string, offset: number, limit: number) {
    return await this.redis.zrevrange(keys.chat.clubConversations(tenantId), offset, offset + limit - 1)
  }

  async clubSize (tenantId: string) { return await this.redis.zcard(keys.chat.clubConversations(tenantId)) }

  async markRead (tenantId: string, phone: string) { await this.redis.hset(this.keysOf(tenantId, phone).conversation, 'unread', '0') }

  async setHandoff (tenantId: string, phone: string, expected: Handoff | undefined, next: Handoff | undefined) {
    const k = this.keysOf(tenantId, phone)
    const deadline = next?.status === 'requested' ? String(next.deadline) : ''
    return await handoffCas(this.redis, [k.conversation, k.due], encode(expected), encode(next), dueMember(tenantId, phone), deadline)
  }

  async dueHandoffs (shard: number, now: number, limit: number) {
    const members = await this.redis.zrangebyscore(b.handoffDue(shard), '-inf', now, 'LIMIT', 0, limit)
    return members.map(dueRef).filter((r): r is ConversationRef => r !== undefined)
  }

  async nextHandoffDeadline (shard: number) {
    const [, at] = await this.redis.zrange(b.handoffDue(shard), 0, 0, 'WITHSCORES')
    return at === undefined ? undefined : Number(at)
  }

  async forget (tenantId: string, phone: string) {
    const k = this.keysOf(tenantId, phone)
    // history, record and deadline share the phone's shard tag: one MULTI; the club index has its own tag
    const [done] = await Promise.all([
      this.redis.multi().del(k.history, k.conversation).zrem(k.due, dueMember(tenantId, phone)).exec(),
      this.redis.zrem(keys.chat.clubConversations(tenantId), phone),
    ])
    return Number(done?.[0]?.[1] ?? 0) > 0
  }
}

/** The same contract in one process (no REDIS_URL). */
export class MemoryInboxStore implements InboxStore {
  private readonly conversations = new Map<string, Record<string, string>>()
  private readonly histories = new Map<string, HistoryMessage[]>()
  private readonly clubs = new Map<string, Map<string, number>>()

  constructor (private readonly shards: number, readonly limits: InboxLimits, private readonly now: () => number) {}

  private hash (tenantId: string, phone: string): Record<string, string> {
    const k = dueMember(tenantId, phone)
    let h = this.conversations.get(k)
    if (!h) this.conversations.set(k, h = {})
    return h
  }

  async record (phone: string, tenantId: string, messages: HistoryMessage[]) {
    if (messages.length === 0) return
    this.append(phone, tenantId, messages)
    await this.index(phone, { tenantId, messages })
  }

  /** What the commit of a turn records (the memory chat store's twin of history.lua). */
  append (phone: string, tenantId: string, messages: HistoryMessage[]): void {
    const k = dueMember(tenantId, phone)
    const list = [...messages].reverse().concat(this.histories.get(k) ?? []).slice(0, this.limits.historyMax)
    this.histories.set(k, list)
    const h = this.hash(tenantId, phone)
    const inbound = messages.filter((m) => m.direction === 'in')
    Object.assign(h, { tenantId, lastAt: String((list[0] as HistoryMessage).at), unread: String(Number(h.unread ?? 0) + inbound.length) })
    if (inbound.length > 0) h.lastInboundAt = String((inbound.at(-1) as HistoryMessage).at)
  }

  async index (phone: string, { tenantId, messages }: Recorded) {
    const club = this.clubs.get(tenantId) ?? new Map<string, number>()
    club.set(phone, (messages.at(-1) as HistoryMessage).at)
    this.clubs.set(tenantId, club)
  }

  async conversation (tenantId: string, phone: string) {
    const k = dueMember(tenantId, phone)
    return conversationOf(phone, this.conversations.get(k) ?? {}, this.histories.get(k)?.[0])
  }

  async handoffOf (tenantId: string, phone: string) { return parseHandoff(this.conversations.get(dueMember(tenantId, phone))?.handoff) }

  async history (tenantId: string, phone: string, offset: number, limit: number) {
    const since = this.now() - this.limits.historyMs
    return (this.histories.get(dueMember(tenantId, phone)) ?? []).slice(offset, offset + limit).filter((m) => m.at > since)
  }

  private ranked (tenantId: string): string[] {
    return [...(this.clubs.get(tenantId) ?? new Map<string, number>())].sort((x, y) => y[1] - x[1] || (y[0] < x[0] ? -1 : 1)).map(([p]) => p)
  }

  async clubPhones (tenantId: string, offset: number, limit: number) { return this.ranked(tenantId).slice(offset, offset + limit) }
  async clubSize (tenantId: string) { return this.clubs.get(tenantId)?.size ?? 0 }
  async markRead (tenantId: string, phone: string) { this.hash(tenantId, phone).unread = '0' }

  async setHandoff (tenantId: string, phone: string, expected: Handoff | undefined, next: Handoff | undefined) {
    const h = this.hash(tenantId, phone)
    if ((h.handoff ?? '') !== encode(expected)) return false
    if (next) h.handoff = encode(next)
    else delete h.handoff
    return true
  }

  async dueHandoffs (shard: number, now: number, limit: number) {
    return this.requests(shard).filter(({ deadline }) => deadline <= now).map(({ ref }) => ref).slice(0, limit)
  }

  async nextHandoffDeadline (shard: number) {
    const deadlines = this.requests(shard).map(({ deadline }) => deadline)
    return deadlines.length === 0 ? undefined : Math.min(...deadlines)
  }

  async forget (tenantId: string, phone: string) {
    const k = dueMember(tenantId, phone)
    const had = this.conversations.delete(k)
    this.histories.delete(k)
    this.clubs.get(tenantId)?.delete(phone)
    return had
  }

  /** The shard's conversations asking for a person, with their deadlines. */
  private requests (shard: number): Array<{ ref: ConversationRef, deadline: number }> {
    return [...this.conversations].flatMap(([member, h]) => {
      const ref = dueRef(member) as ConversationRef
      const flag = parseHandoff(h.handoff)
      return shardOf(ref.phone, this.shards) === shard && flag?.status === 'requested' ? [{ ref, deadline: flag.deadline }] : []
    })
  }
}

export function createInboxStore (redis: RedisClient | null, shards: number, limits: InboxLimits, now: () => number): InboxStore {
  return redis ? new RedisInboxStore(redis, shards, limits, now) : new MemoryInboxStore(shards, limits, now)
}
