import { hash } from 'node:crypto'
import type { PhoneView } from '../phone-view.ts'
import type { ReceiptStore, SentReply } from '../receipts/port.ts'

export type { ReceiptStore, SentReply }
export { sentPeriod } from '../receipts/port.ts'

// The chat pipeline's state per phone: the mailbox of accepted messages, the session, the outbox of replies,
// and two leases (one for turns, one for sends), with the dead letters of each shard. A turn's whole result
// (session, applied id, replies, mailbox ack) is committed in one atomic step fenced by the lease owner, so a
// turn is applied once whatever crashes; a reply leaves the outbox only once the provider took it.

/** The provider retries for about 90 seconds; duplicates are remembered far longer than that. */
export const DEDUPE_TTL_SECONDS = 24 * 60 * 60
export const SESSION_TTL_MS = 30 * 24 * 60 * 60_000
/** How many applied inbound ids a session remembers (a re-run only ever concerns the latest ones). */
export const APPLIED_KEPT = 8
/** Dead letters kept per club and shard (and of no club per shard); the oldest go first. */
export const DEAD_KEPT = 1_000
export const LINK_RESULT_TTL_MS = 10 * 60_000
/** A system message's id is remembered this long: the same event again within it is not queued again. */
export const SYSTEM_SENT_TTL_MS = 30 * 24 * 60 * 60_000

export type Lane = 'turn' | 'send'

/**
 * How a session remembers an applied inbound id: the first 12 hex digits of its SHA-1 (a provider's id is about
 * 50 characters, and a session keeps APPLIED_KEPT of them; a collision among a phone's latest 8 is about one in
 * 10^13). An id that already looks like a mark is kept as it is. The one-shot `hash` gives createHash's bytes without
 * building a Hash object (a third of the cost, for every id a turn checks and commits).
 */
export const appliedMark = (id: string): string => /^[0-9a-f]{12}$/.test(id) ? id : hash('sha1', id, 'hex').slice(0, 12)
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

/** Reads a phone's view (src/chat/phone-view.ts) for the take to bring with the work; `club`: the turn's, when known. */
export type PhoneViewReader = (phone: string, club?: string) => Promise<PhoneView>

export interface TurnWork {
  phone: string
  /** The mailbox head (an InboundMessage as JSON). */
  message: string
  session: SessionState
  /** Attempts at this message that failed or whose worker died (attempts-2), and this one. */
  tries: number
  lastError: string | undefined
  /**
   * Other owners' attempts at this message that have not ended: a worker that died on it, or one still on it that
   * lost its lease to time (a slow Redis). Counted as tries only once their owner stopped beating (`gone`).
   */
  open: string[]
}

export interface SendWork {
  phone: string
  /** The outbox head (an OutboxEntry as JSON). */
  entry: string
  /** Failed attempts at this entry so far. */
  tries: number
  /** Taken over from this owner's send lease, which ran out in its hands (never given back). */
  from?: string
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

interface Accepted {
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

export type Author = 'member' | 'bot' | 'system' | `staff:${string}`

/** One message of a conversation's history, as staff read it. */
export interface HistoryMessage {
  id: string
  at: number
  direction: 'in' | 'out'
  author: Author
  /** text, interactive, flow, template, image, …: the provider's message type. */
  type: string
  text: string
  /** A button or list row chosen (inbound) or offered (outbound), by reply id. */
  choice?: string
}

/** Messages recorded together (oldest first, at least one) in a club's conversation. */
export interface Recorded { tenantId: string, messages: HistoryMessage[] }

/** How long and how much of a conversation's history is kept (the inbox store's, which a commit records into). */
export interface InboxLimits { historyMs: number, historyMax: number }

/** Where a delivered reply's receipt starts: kept this long on Redis; in memory, handed to the receipts store. */
export interface ReceiptsOf { ttlMs: number, record?: ReceiptStore['recordSent'] }

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

/** What a heartbeat answers. */
export interface Beat {
  /** Instances whose time ran out, reported to this caller only. */
  gone: string[]
  /** Other instances that beat in time (0: this one is alone, and nobody listens to its wake-ups). */
  others: number
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
  /**
   * Leases the phone's outbox and answers its head. `spareMs` > 0: a lease that ran out in another owner's hands
   * (never given back) is left to it that long (busy), for that owner may have had the head delivered while Redis
   * was away and records it once its connection is back.
   */
  takeSend (phone: string, owner: string, leaseMs: number, spareMs?: number): Promise<Taken<SendWork>>
  /** Removes the outbox head the owner holds (given up or replaced) and, when `dead` is given, keeps it as a dead letter. */
  sent (phone: string, owner: string, entry: string, leaseMs: number, dead?: DeadLetter): Promise<Next<SendWork>>
  /**
   * The provider took `entry`: starts its receipt (when the provider named the message) and removes it from the
   * outbox head if still there, whoever holds the lease now; the lease goes on for the next head if it is the
   * owner's or nobody's. Safe to repeat: a second call finds the head gone and answers lost.
   */
  delivered (phone: string, owner: string, entry: string, leaseMs: number, receipt?: SentReply): Promise<Next<SendWork>>
  /** Removes the mailbox head into the dead letters. */
  deadTurn (phone: string, owner: string, letter: DeadLetter, leaseMs: number): Promise<Next<TurnWork>>
  /**
   * Gives the lease back, the phone due again in `delayMs`. `failed` counts the attempt as a try (a send's or a
   * turn's); a turn's open attempt ends either way; `error` is kept for a turn.
   */
  release (lane: Lane, phone: string, owner: string, delayMs: number, failed: boolean, error?: string): Promise<void>
  /**
   * Ends these owners' open attempts at the mailbox head `message` (nothing when it is no longer the head):
   * `counted`, each is a try (its worker died); else it is given back (it ended without failing). Answers the
   * tries counted at the head.
   */
  endAttempts (phone: string, message: string, owners: string[], counted: boolean): Promise<number>
  /** The owners among these that no longer beat (heartbeat): gone, or their time ran out. */
  gone (owners: string[]): Promise<string[]>
  /** Extends the owner's lease; false when another owner took the phone or the lease was given back. */
  /**
   * Gives a send lease `owner` took over back to `holder`, run out as it was (so only `holder` takes it while others
   * spare); false when `owner` no longer held it.
   */
  spare (phone: string, owner: string, holder: string): Promise<boolean>
  renew (lane: Lane, phone: string, owner: string, leaseMs: number): Promise<boolean>
  /** True while the phone has mail or replies waiting or in progress. */
  pending (phone: string): Promise<boolean>
  /** Phones with replies waiting, over every shard. */
  outboxPhones (): Promise<number>
  /** The club's, newest first, over every shard (each shard's index of the club: no other club's letter is read). */
  deadLetters (tenantId: string, limit: number): Promise<DeadLetter[]>
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
   * only (their leases run out and their phones must be looked for), and how many others beat in time.
   */
  heartbeat (owner: string, ttlMs: number): Promise<Beat>
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
