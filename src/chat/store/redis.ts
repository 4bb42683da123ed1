import type { RedisClient } from '../../stores/redis-client.ts'
import { keys } from '../../stores/keys.ts'
import { shardOf } from '../../stores/shards.ts'
import {
  byPhone, DEAD_KEPT, DEDUPE_TTL_SECONDS, LINK_RESULT_TTL_MS, SESSION_TTL_MS, sentPeriod, shardOfDeadLetter, SYSTEM_SENT_TTL_MS,
  type AcceptOptions, type ChatStore, type Commit, type Committed, type DeadLetter, type InboxLimits, type Lane, type Letter, type Next,
  type SendWork, type Taken, type TurnWork, type PhoneViewReader, type SentReply,
} from './port.ts'
import * as scripts from './scripts.ts'
import { envelopeOf, historyArgs, packMarks, type Head } from './scripts.ts'
import { packSession } from '../session-codec.ts'

// The chat store on Redis: each method one script of scripts/ (or a plain read), on one Redis or a Redis Cluster.

const b = keys.chat.bot
const EMPTY_SESSION = { version: 0, doc: undefined, applied: [] }

const turnWork = (phone: string, h: Head): TurnWork =>
  ({ phone, message: h.entry, session: h.session ?? EMPTY_SESSION, tries: h.tries, lastError: h.lastError, open: h.open ?? [] })
const sendWork = (phone: string, h: Head): SendWork => ({ phone, entry: h.entry, tries: h.tries, ...(h.from ? { from: h.from } : {}) })

/** The index a dead letter is listed in: its club's, or the shard's one for letters of no club. */
const deadIndexOf = (shard: number, tenantId: string | undefined): string => tenantId === undefined ? b.deadIndex(shard) : b.deadOfClub(shard, tenantId)

function withPhone<T> (next: Next<Head>, work: (h: Head) => T): Next<T> {
  return next.kind === 'more' ? { kind: 'more', work: work(next.work) } : { kind: next.kind }
}

export class RedisChatStore implements ChatStore {
  /**
   * The turn's view is read beside the take on one Redis only: sent behind the take on the same connection, it
   * runs after it there, so it sees whatever the phone's previous turn wrote before committing (but for the take
   * sent again as EVAL once after a Redis restart emptied the script cache, behind them). A cluster keeps
   * those keys on other nodes, in no order with the take: the turn reads its view once the take answered.
   */
  private readonly readView: PhoneViewReader | undefined

  /**
   * `history`: the limits of the conversation history its commits record (the inbox store's); `receiptTtlMs`: how
   * long a delivered reply's receipt is kept (src/chat/receipts).
   */
  constructor (private readonly redis: RedisClient, readonly shards: number, private readonly history?: InboxLimits, readView?: PhoneViewReader,
    private readonly receiptTtlMs?: number) {
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
      const { stored, due } = await scripts.accept(this.redis, [b.session(s, phone), b.mailbox(s, phone), b.ready(s), b.seen(s, phone)],
        phone, DEDUPE_TTL_SECONDS, options.at === undefined ? '' : String(options.at), options.deliveryKey ?? '', ...group.flatMap((l) => [l.id, l.body]))
      return { phone, stored, due }
    }))
    return { stored: results.reduce((n, r) => n + r.stored, 0), due: results.filter((r) => r.due).map((r) => r.phone) }
  }

  async due (shard: number, limit: Record<Lane, number>) {
    return await scripts.due(this.redis, [b.ready(shard), b.sendable(shard)], limit.turn, limit.send)
  }

  private async take (lane: Lane, phone: string, owner: string, leaseMs: number, spareMs = 0): Promise<Taken<Head>> {
    const k = this.laneKeys(lane, phone)
    return await scripts.take(this.redis, [k.zset, k.owners, k.list, k.meta], phone, owner, leaseMs, lane, Math.max(0, Math.round(spareMs)))
  }

  async takeTurn (phone: string, owner: string, leaseMs: number): Promise<Taken<TurnWork>> {
    const take = this.take('turn', phone, owner, leaseMs)
    const view = this.readView?.(phone)
    // a take that finds no work drops the view, and its failure with it
    view?.catch(() => {})
    const t = await take
    if (t.kind !== 'ok') return t
    const work = turnWork(phone, t.work)
    return { kind: 'ok', work: view ? { ...work, session: { ...work.session, view } } : work }
  }

  async takeSend (phone: string, owner: string, leaseMs: number, spareMs = 0): Promise<Taken<SendWork>> {
    const t = await this.take('send', phone, owner, leaseMs, spareMs)
    return t.kind === 'ok' ? { kind: 'ok', work: sendWork(phone, t.work) } : t
  }

  async commitTurn (phone: string, owner: string, c: Commit, leaseMs: number): Promise<Committed> {
    const s = this.shard(phone)
    const links = (c.linkCodes ?? []).map((code) => b.linkResult(s, phone, code))
    // the conversation of the club the turn is recorded for (a turn with no club records nothing: its keys are
    // named for no club and not touched)
    const club = c.record?.tenantId ?? ''
    const r = await scripts.commit(this.redis,
      [b.session(s, phone), b.mailbox(s, phone), b.outbox(s, phone), b.ready(s), b.owners(s), b.sendable(s), b.senders(s), b.sendTries(s),
        b.history(s, club, phone), b.conversation(s, club, phone), ...links],
      phone, owner, c.expected, c.doc
        ? packSession(c.doc)
        : '', packMarks(c.applied), c.message, leaseMs, SESSION_TTL_MS, c.sender ?? '', c.replies.length, ...c.replies,
      ...(c.record ? historyArgs(c.record, this.recorder()) : ['']))
    const result = withPhone(r, (h) => turnWork(phone, h))
    if (r.send) return { ...result, send: sendWork(phone, r.send) }
    return r.senderDue === true ? { ...result, senderDue: true } : result
  }

  private recorder (): InboxLimits {
    if (!this.history) throw new Error('this chat store keeps no conversation history')
    return this.history
  }

  private async pop (lane: Lane, phone: string, owner: string, head: string, leaseMs: number, dead: DeadLetter | undefined): Promise<Next<Head>> {
    const k = this.laneKeys(lane, phone)
    const s = this.shard(phone)
    return await scripts.pop(this.redis, [k.list, k.zset, k.owners, k.meta, b.dead(s), deadIndexOf(s, dead?.tenantId)],
      phone, owner, head, leaseMs, lane, dead?.id ?? '', dead ? JSON.stringify(dead) : '', DEAD_KEPT)
  }

  async sent (phone: string, owner: string, entry: string, leaseMs: number, dead?: DeadLetter) {
    return withPhone(await this.pop('send', phone, owner, entry, leaseMs, dead), (h) => sendWork(phone, h))
  }

  async delivered (phone: string, owner: string, entry: string, leaseMs: number, receipt?: SentReply) {
    const k = this.laneKeys('send', phone)
    const s = this.shard(phone)
    const messageId = receipt?.messageId ?? ''
    if (receipt && this.receiptTtlMs === undefined) throw new Error('this chat store keeps no receipts')
    const ids = b.sentIds(s, phone, sentPeriod(Date.now()))
    const next = await scripts.delivered(this.redis, [k.list, k.zset, k.owners, k.meta, b.receipt(s, phone, messageId), ids],
      phone, owner, entry, leaseMs, messageId, receipt?.replyId ?? '', receipt ? JSON.stringify(receipt) : '', this.receiptTtlMs ?? 0)
    return withPhone(next, (h) => sendWork(phone, h))
  }

  async deadTurn (phone: string, owner: string, letter: DeadLetter, leaseMs: number) {
    return withPhone(await this.pop('turn', phone, owner, letter.payload, leaseMs, letter), (h) => turnWork(phone, h))
  }

  async release (lane: Lane, phone: string, owner: string, delayMs: number, failed: boolean, error?: string) {
    const k = this.laneKeys(lane, phone)
    await scripts.release(
      this.redis, [k.zset, k.owners, k.meta], phone, owner, Math.max(0, Math.round(delayMs)), lane, failed ? '1' : '0', error === undefined ? '0' : '1',
      error ?? ''
    )
  }

  async endAttempts (phone: string, message: string, owners: string[], counted: boolean) {
    const s = this.shard(phone)
    return await scripts.attempts(this.redis, [b.session(s, phone), b.mailbox(s, phone)], message, counted ? '1' : '0', ...owners)
  }

  async gone (owners: string[]) {
    return owners.length === 0 ? [] : await scripts.gone(this.redis, [keys.chat.instances()], ...owners)
  }

  async spare (phone: string, owner: string, holder: string) {
    const k = this.laneKeys('send', phone)
    return await scripts.spare(this.redis, [k.zset, k.owners], phone, owner, holder)
  }

  async renew (lane: Lane, phone: string, owner: string, leaseMs: number) {
    const k = this.laneKeys(lane, phone)
    return await scripts.renew(this.redis, [k.zset, k.owners], phone, owner, leaseMs)
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

  async deadLetters (tenantId: string, limit: number) {
    const records = await this.everyShard(async (s) => {
      const found = await this.redis.zrevrange(b.deadOfClub(s, tenantId), 0, limit - 1)
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
    return await scripts.redrive(this.redis, [b.dead(s), deadIndexOf(s, letter.tenantId), b.deadIndex(s), k.list, k.zset], id, letter.phone)
  }

  async enqueue (phone: string, entries: string[]) {
    if (entries.length === 0) return
    const k = this.laneKeys('send', phone)
    await scripts.enqueue(this.redis, [k.list, k.zset], phone, ...entries)
  }

  async enqueueSystem (phone: string, id: string, entry: string) {
    const s = this.shard(phone)
    return await scripts.enqueueSystem(this.redis, [b.systemSent(s, phone, id), b.outbox(s, phone), b.sendable(s)], phone, entry, SYSTEM_SENT_TTL_MS)
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

  async heartbeat (owner: string, ttlMs: number) { return await scripts.heartbeat(this.redis, [keys.chat.instances()], owner, ttlMs) }
  async leave (owner: string) { await scripts.heartbeat(this.redis, [keys.chat.instances()], owner, 0) }
}
