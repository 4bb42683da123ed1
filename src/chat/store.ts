import { createHash } from 'node:crypto'
import type { PhoneView } from './turn-view.ts'
import { shardOf } from '../stores/shards.ts'
import type { HistoryMessage, Recorded } from './inbox/store.ts'

// The chat pipeline's state per phone: the mailbox of accepted messages, the session, the outbox of replies,
// and two leases (one for turns, one for sends), with the dead letters of each shard. A turn's whole result
// (session, applied id, replies, mailbox ack) is committed in one atomic step fenced by the lease owner, so a
// turn is applied once whatever crashes; a reply leaves the outbox only once the provider took it.

/** The provider retries for about 90 seconds; duplicates are remembered far longer than that. */
export const DEDUPE_TTL_SECONDS = 24 * 60 * 60
export const SESSION_TTL_MS = 30 * 24 * 60 * 60_000
/** How many applied inbound ids a session remembers (a re-run only ever concerns the latest ones). */
export const APPLIED_KEPT = 8
/** Dead letters kept per shard; the oldest go first. */
export const DEAD_KEPT = 1_000
export const LINK_RESULT_TTL_MS = 10 * 60_000
/** A system message's id is remembered this long: the same event again within it is not queued again. */
export const SYSTEM_SENT_TTL_MS = 30 * 24 * 60 * 60_000

export type Lane = 'turn' | 'send'

/**
 * How a session remembers an applied inbound id: the first 12 hex digits of its SHA-1 (a provider's id is about
 * 50 characters, and a session keeps APPLIED_KEPT of them; a collision among a phone's latest 8 is about one in
 * 10^13). An id that already looks like a mark is kept as it is.
 */
export const appliedMark = (id: string): string => /^[0-9a-f]{12}$/.test(id) ? id : createHash('sha1').update(id).digest('hex').slice(0, 12)
/** Sessions saved before the marks hold the ids themselves. */
export const isApplied = (applied: readonly string[], id: string): boolean => applied.includes(id) || applied.includes(appliedMark(id))

/** One message for a phone's mailbox: its provider id (for de-duplication) and what the worker will read. */
export interface Letter {
  phone: string
  id: string
  body: string
}

export interface SessionState {
  /** Compare-and-set version; 0 when there is no session. */
  version: number
  doc: string | undefined
  /** Inbound ids applied, newest first, as their marks (appliedMark). */
  applied: string[]
  /**
   * The phone's other records the turn reads, when the take brought them (read beside it on one Redis); the turn
   * reads them itself when absent (the memory store, a cluster, the next head a commit answers).
   */
  view?: Promise<PhoneView>
}

/** Reads a phone's view (src/chat/turn-view.ts) for the take to bring with the work. */
export type ViewReader = (phone: string) => Promise<PhoneView>

export interface TurnWork {
  phone: string
  /** The mailbox head (an InboundMessage as JSON). */
  message: string
  session: SessionState
  /** Attempts at this message, this one included. */
  tries: number
  lastError: string | undefined
}

export interface SendWork {
  phone: string
  /** The outbox head (an OutboxEntry as JSON). */
  entry: string
  /** Failed attempts at this entry so far. */
  tries: number
}

export type Taken<T> = { kind: 'ok', work: T } | { kind: 'busy', inMs: number } | { kind: 'empty' }
export type Next<T> = { kind: 'more', work: T } | { kind: 'done' } | { kind: 'lost' }
/**
 * A commit's outcome. When no sender was on the outbox its replies went into: `send`, the outbox head leased to
 * the commit's `sender`, or without one `senderDue` (a sender must be told).
 */
export type Committed = Next<TurnWork> & { senderDue?: boolean, send?: SendWork }

export interface AcceptOptions {
  /** The provider's key for the whole delivery: a phone that saw it takes none of its letters again. */
  deliveryKey?: string
  /** The moment the phones wrote (epoch ms, the app's clock), noted for the provider's 24-hour window. */
  at?: number
}

export interface Accepted {
  /** Letters stored (their id was new). */
  stored: number
  /** Phones nobody is on (their mailbox was empty, or waits with no lease and no backoff): a worker must be told. */
  due: string[]
}

/** A phone found waiting in a lane, and in how long it may be taken (0: now). */
export interface Waiting { phone: string, inMs: number }

export interface Commit {
  /** The session version the turn started from. */
  expected: number
  /** The new session; undefined acknowledges the message without changing the session (a duplicate). */
  doc: string | undefined
  applied: string[]
  /** The mailbox head this commit is for. */
  message: string
  /** Outbox entries (JSON), in order. */
  replies: string[]
  /** This instance's sender, to lease the outbox to (same length) when the replies wake it: it need not take it. */
  sender?: string
  /** The turn's messages for the conversation history, recorded with the commit (exactly once per committed turn). */
  record?: Recorded
  /** Link codes the turn consumed: their remembered results are dropped with the commit. */
  linkCodes?: string[]
}

/** Where the memory store's commits record a turn's messages (the memory inbox store). */
export interface HistorySink { append (phone: string, tenantId: string, messages: HistoryMessage[]): void }

export interface DeadLetter {
  id: string
  lane: Lane
  phone: string
  tenantId: string | undefined
  reason: string
  at: number
  tries: number
  /** The message (turn) or outbox entry (send), as it was queued. */
  payload: string
}

export interface ChatStore {
  readonly shards: number
  /**
   * Stores each letter whose id the phone has not seen in DEDUPE_TTL_SECONDS (none of a phone that saw the
   * delivery key), and notes that the phones wrote; one atomic step per phone.
   */
  accept (letters: Letter[], options?: AcceptOptions): Promise<Accepted>
  /** The shard's phones with work in each lane (leased or backing off ones too, with their wait), at most `limit` of each. */
  due (shard: number, limit: Record<Lane, number>): Promise<Record<Lane, Waiting[]>>
  takeTurn (phone: string, owner: string, leaseMs: number): Promise<Taken<TurnWork>>
  /** Saves the session, the applied id and the replies and removes the head, if `owner` still holds the lease. */
  commitTurn (phone: string, owner: string, commit: Commit, leaseMs: number): Promise<Committed>
  takeSend (phone: string, owner: string, leaseMs: number): Promise<Taken<SendWork>>
  /** Removes the outbox head (delivered) and, when `dead` is given, keeps it as a dead letter. */
  sent (phone: string, owner: string, entry: string, leaseMs: number, dead?: DeadLetter): Promise<Next<SendWork>>
  /** Removes the mailbox head into the dead letters. */
  deadTurn (phone: string, owner: string, letter: DeadLetter, leaseMs: number): Promise<Next<TurnWork>>
  /**
   * Gives the lease back, the phone due again in `delayMs`. `failed` counts the attempt (a send's tries; a
   * turn's attempt was counted when taken, and is given back when not failed); `error` is kept for a turn.
   */
  release (lane: Lane, phone: string, owner: string, delayMs: number, failed: boolean, error?: string): Promise<void>
  renew (lane: Lane, phone: string, owner: string, leaseMs: number): Promise<boolean>
  /** True while the phone has mail or replies waiting or in progress. */
  pending (phone: string): Promise<boolean>
  /** Phones with replies waiting, over every shard. */
  outboxPhones (): Promise<number>
  /** Newest first, over every shard. */
  deadLetters (limit: number): Promise<DeadLetter[]>
  deadLetter (id: string): Promise<DeadLetter | undefined>
  /** Puts a dead letter back at the end of its phone's mailbox or outbox; the letter, or undefined if unknown. */
  redrive (id: string): Promise<DeadLetter | undefined>
  /** Appends entries (JSON, in order) to the phone's outbox, behind the bot's replies (staff and system messages). */
  enqueue (phone: string, entries: string[]): Promise<void>
  /**
   * Queues a message the system sends by itself (not a turn's reply) at the end of the phone's outbox, unless
   * one with this id was queued already (SYSTEM_SENT_TTL_MS); true when queued.
   */
  enqueueSystem (phone: string, id: string, entry: string): Promise<boolean>
  /** When the phone last wrote (as accepted with `at`), while its record lives. */
  lastInbound (phone: string): Promise<number | undefined>
  /**
   * This instance is alive for another `ttlMs`; answers the instances whose time ran out, each to one caller
   * only (their leases run out and their phones must be looked for).
   */
  heartbeat (owner: string, ttlMs: number): Promise<string[]>
  /** This instance stops: the others see it gone at their next heartbeat. */
  leave (owner: string): Promise<void>
  linkResult (phone: string, code: string): Promise<string | undefined>
  putLinkResult (phone: string, code: string, result: string): Promise<void>
}

/** A dead letter's id names its shard, so that it can be found again without a scan. */
export const deadLetterId = (shard: number, unique: string): string => `${shard}-${unique}`
export const shardOfDeadLetter = (id: string): number | undefined => {
  const m = /^(\d+)-[\w-]+$/.exec(id)
  return m ? Number(m[1]) : undefined
}

/** The letters of each phone, in order. */
export function byPhone (letters: Letter[]): Map<string, Letter[]> {
  const grouped = new Map<string, Letter[]>()
  for (const l of letters) grouped.set(l.phone, [...(grouped.get(l.phone) ?? []), l])
  return grouped
}

interface Queue { items: string[], dueAt: number, owner: string | undefined, tries: number }
interface Phone {
  mailbox: Queue
  outbox: Queue
  session: { version: number, doc: string | undefined, applied: string[], expiresAt: number, lastError: string | undefined }
}

/** The same contract in one process (no REDIS_URL). Nothing here awaits between a check and its write. */
export class MemoryChatStore implements ChatStore {
  private readonly phones = new Map<string, Phone>()
  private readonly seen = new Map<string, number>()
  private readonly dead = new Map<string, DeadLetter>()
  private readonly linkResults = new Map<string, { result: string, until: number }>()
  private readonly inbound = new Map<string, number>()
  private readonly live = new Map<string, number>()

  constructor (readonly shards: number, private readonly now: () => number = Date.now, private readonly history?: HistorySink) {}

  private phone (phone: string): Phone {
    let p = this.phones.get(phone)
    if (!p) {
      const queue = (): Queue => ({ items: [], dueAt: 0, owner: undefined, tries: 0 })
      p = { mailbox: queue(), outbox: queue(), session: { version: 0, doc: undefined, applied: [], expiresAt: Infinity, lastError: undefined } }
      this.phones.set(phone, p)
    }
    if (p.session.expiresAt <= this.now()) Object.assign(p.session, { version: 0, doc: undefined, applied: [], expiresAt: Infinity })
    return p
  }

  private queue (lane: Lane, phone: string): Queue {
    const p = this.phone(phone)
    return lane === 'turn' ? p.mailbox : p.outbox
  }

  private remember (key: string): boolean {
    const until = this.seen.get(key)
    if (until !== undefined && until > this.now()) return false
    this.seen.set(key, this.now() + DEDUPE_TTL_SECONDS * 1000)
    if (this.seen.size > 100_000) for (const [k, u] of this.seen) if (u <= this.now()) this.seen.delete(k)
    return true
  }

  /** Appends; true when nobody is on the queue (it was empty, or due with no lease and no backoff). */
  private push (q: Queue, item: string): boolean {
    const wasEmpty = q.items.length === 0
    if (wasEmpty) Object.assign(q, { dueAt: this.now(), owner: undefined, tries: 0 })
    q.items.push(item)
    return wasEmpty || q.dueAt <= this.now()
  }

  async accept (letters: Letter[], options: AcceptOptions = {}) {
    let stored = 0
    const due: string[] = []
    for (const [phone, group] of byPhone(letters)) {
      if (options.at !== undefined) this.inbound.set(phone, options.at)
      // the delivery key is remembered per phone, as Redis does (src/chat/store-redis.ts)
      if (options.deliveryKey !== undefined && !this.remember(`d:${phone}:${options.deliveryKey}`)) continue
      let told = false
      for (const { id, body } of group) {
        if (!this.remember(`m:${phone}:${id}`)) continue
        stored++
        told = this.push(this.phone(phone).mailbox, body) || told
      }
      if (told) due.push(phone)
    }
    return { stored, due }
  }

  async due (shard: number, limit: Record<Lane, number>) {
    const now = this.now()
    const found: Record<Lane, Waiting[]> = { turn: [], send: [] }
    for (const [phone, p] of this.phones) {
      if (shardOf(phone, this.shards) !== shard) continue
      for (const [lane, q] of [['turn', p.mailbox], ['send', p.outbox]] as const) {
        if (found[lane].length < limit[lane] && q.items.length > 0) found[lane].push({ phone, inMs: Math.max(0, q.dueAt - now) })
      }
    }
    return found
  }

  private take (q: Queue, owner: string, leaseMs: number): Taken<string> {
    if (q.items.length === 0) return { kind: 'empty' }
    const now = this.now()
    if (q.dueAt > now) return { kind: 'busy', inMs: q.dueAt - now }
    Object.assign(q, { dueAt: now + leaseMs, owner })
    return { kind: 'ok', work: q.items[0] as string }
  }

  private turnWork (phone: string): TurnWork {
    const p = this.phone(phone)
    const { version, doc, applied, lastError } = p.session
    return { phone, message: p.mailbox.items[0] as string, session: { version, doc, applied: [...applied] }, tries: p.mailbox.tries, lastError }
  }

  async takeTurn (phone: string, owner: string, leaseMs: number): Promise<Taken<TurnWork>> {
    const q = this.phone(phone).mailbox
    const taken = this.take(q, owner, leaseMs)
    if (taken.kind !== 'ok') return taken
    q.tries++
    return { kind: 'ok', work: this.turnWork(phone) }
  }

  /** Removes the head the owner holds; the next head stays leased, or the queue is done. */
  private pop (q: Queue, owner: string, head: string, leaseMs: number): 'more' | 'done' | 'lost' {
    if (q.owner !== owner || q.items[0] !== head || q.dueAt <= this.now()) return 'lost'
    q.items.shift()
    q.tries = 0
    if (q.items.length === 0) {
      Object.assign(q, { owner: undefined, dueAt: 0 })
      return 'done'
    }
    q.dueAt = this.now() + leaseMs
    return 'more'
  }

  async commitTurn (phone: string, owner: string, commit: Commit, leaseMs: number): Promise<Committed> {
    const p = this.phone(phone)
    const q = p.mailbox
    if (q.owner !== owner || q.items[0] !== commit.message || q.dueAt <= this.now() || p.session.version !== commit.expected) return { kind: 'lost' }
    if (commit.doc !== undefined) {
      Object.assign(p.session, { version: commit.expected + 1, doc: commit.doc, applied: commit.applied.map(appliedMark), expiresAt: this.now() + SESSION_TTL_MS })
    }
    p.session.lastError = undefined
    if (commit.record) this.recorder().append(phone, commit.record.tenantId, commit.record.messages)
    for (const code of commit.linkCodes ?? []) this.linkResults.delete(`${phone}:${code}`)
    const senderDue = commit.replies.map((reply) => this.push(p.outbox, reply))[0] === true
    const next = this.after(phone, this.pop(q, owner, commit.message, leaseMs))
    if (!senderDue) return next
    if (commit.sender === undefined) return { ...next, senderDue }
    const taken = this.take(p.outbox, commit.sender, leaseMs)
    return taken.kind === 'ok' ? { ...next, send: { phone, entry: taken.work, tries: p.outbox.tries } } : next
  }

  private recorder (): HistorySink {
    if (!this.history) throw new Error('this chat store keeps no conversation history')
    return this.history
  }

  private after (phone: string, popped: 'more' | 'done' | 'lost'): Next<TurnWork> {
    if (popped !== 'more') return { kind: popped }
    const q = this.phone(phone).mailbox
    q.tries = 1
    return { kind: 'more', work: this.turnWork(phone) }
  }

  private bury (letter: DeadLetter): void {
    this.dead.set(letter.id, letter)
    const over = [...this.dead.values()].filter((l) => shardOfDeadLetter(l.id) === shardOfDeadLetter(letter.id))
    if (over.length > DEAD_KEPT) this.dead.delete((over[0] as DeadLetter).id)
  }

  async deadTurn (phone: string, owner: string, letter: DeadLetter, leaseMs: number): Promise<Next<TurnWork>> {
    const q = this.phone(phone).mailbox
    const popped = this.pop(q, owner, letter.payload, leaseMs)
    if (popped !== 'lost') {
      this.bury(letter)
      this.phone(phone).session.lastError = undefined
    }
    return this.after(phone, popped)
  }

  async takeSend (phone: string, owner: string, leaseMs: number): Promise<Taken<SendWork>> {
    const q = this.phone(phone).outbox
    const taken = this.take(q, owner, leaseMs)
    return taken.kind === 'ok' ? { kind: 'ok', work: { phone, entry: taken.work, tries: q.tries } } : taken
  }

  async sent (phone: string, owner: string, entry: string, leaseMs: number, dead?: DeadLetter): Promise<Next<SendWork>> {
    const q = this.phone(phone).outbox
    const popped = this.pop(q, owner, entry, leaseMs)
    if (popped !== 'lost' && dead) this.bury(dead)
    return popped === 'more' ? { kind: 'more', work: { phone, entry: q.items[0] as string, tries: 0 } } : { kind: popped }
  }

  async release (lane: Lane, phone: string, owner: string, delayMs: number, failed: boolean, error?: string) {
    const q = this.queue(lane, phone)
    if (q.owner !== owner || q.items.length === 0) return
    Object.assign(q, { owner: undefined, dueAt: this.now() + delayMs })
    if (lane === 'send' && failed) q.tries++
    if (lane === 'turn') {
      if (!failed) q.tries = Math.max(0, q.tries - 1)
      if (error !== undefined) this.phone(phone).session.lastError = error
    }
  }

  async renew (lane: Lane, phone: string, owner: string, leaseMs: number) {
    const q = this.queue(lane, phone)
    if (q.owner !== owner || q.items.length === 0 || q.dueAt <= this.now()) return false
    q.dueAt = this.now() + leaseMs
    return true
  }

  async pending (phone: string) {
    const p = this.phones.get(phone)
    return p !== undefined && (p.mailbox.items.length > 0 || p.outbox.items.length > 0)
  }

  async outboxPhones () { return [...this.phones.values()].filter((p) => p.outbox.items.length > 0).length }

  async deadLetters (limit: number) {
    return [...this.dead.values()].sort((a, b) => b.at - a.at).slice(0, limit)
  }

  async deadLetter (id: string) { return this.dead.get(id) }

  async redrive (id: string) {
    const letter = this.dead.get(id)
    if (!letter) return undefined
    this.dead.delete(id)
    this.push(this.queue(letter.lane, letter.phone), letter.payload)
    return letter
  }

  async enqueue (phone: string, entries: string[]) {
    for (const entry of entries) this.push(this.phone(phone).outbox, entry)
  }

  async enqueueSystem (phone: string, id: string, entry: string) {
    const key = `s:${phone}:${id}`
    const until = this.seen.get(key)
    if (until !== undefined && until > this.now()) return false
    this.seen.set(key, this.now() + SYSTEM_SENT_TTL_MS)
    this.push(this.phone(phone).outbox, entry)
    return true
  }

  async lastInbound (phone: string) { return this.inbound.get(phone) }

  async linkResult (phone: string, code: string) {
    const hit = this.linkResults.get(`${phone}:${code}`)
    return hit && hit.until > this.now() ? hit.result : undefined
  }

  async putLinkResult (phone: string, code: string, result: string) {
    this.linkResults.set(`${phone}:${code}`, { result, until: this.now() + LINK_RESULT_TTL_MS })
  }

  async heartbeat (owner: string, ttlMs: number) {
    const gone = [...this.live].filter(([o, until]) => o !== owner && until <= this.now()).map(([o]) => o)
    for (const o of gone) this.live.delete(o)
    this.live.set(owner, this.now() + ttlMs)
    return gone
  }

  async leave (owner: string) { this.live.set(owner, 0) }
}
