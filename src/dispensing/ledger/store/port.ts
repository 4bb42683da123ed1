import type { ChainHead, LedgerEntry } from '../chain.ts'

// A club's dispensing record: append-only, entries in sequence, with an index by time and one by order. Only the
// retention job removes, and only from the front, keeping the hash of the last entry removed as the anchor the
// first kept entry must follow.

export type AppendOutcome = 'ok' | 'moved' | 'handed-over' | 'reversed'

export interface AppendGuard {
  /** The order handed over: refused when the record has it already. */
  orderId?: string | undefined
  /** The entry a reversal reverses: refused when it is reversed already. */
  reverses?: string | undefined
}

/** What the record's list asks for: entries with a time in [fromMs, toMs), of one member and/or one product. */
export interface LedgerQuery {
  memberId?: string | undefined
  productId?: string | undefined
  fromMs: number
  toMs: number
  limit: number
  offset: number
}

export interface LedgerStore {
  head (tenantId: string): Promise<ChainHead>
  /** Appends `entries` (chained after `expectedSeq`) unless the head moved meanwhile or the guard refuses. */
  append (tenantId: string, expectedSeq: number, entries: readonly LedgerEntry[], guard: AppendGuard): Promise<AppendOutcome>
  get (tenantId: string, seq: number): Promise<LedgerEntry | undefined>
  /** The ids the handover of `orderId` wrote; undefined when it was not handed over. */
  orderEntries (tenantId: string, orderId: string): Promise<string[] | undefined>
  /** The id of the entry reversing `id`, if any. */
  reversal (tenantId: string, id: string): Promise<string | undefined>
  /** Entries with a time in [fromMs, toMs), in sequence. */
  range (tenantId: string, fromMs: number, toMs: number): Promise<LedgerEntry[]>
  /** The page of entries matching `q`, in sequence, and how many match in all: filtered and paged here, not by the caller. */
  page (tenantId: string, q: LedgerQuery): Promise<{ entries: LedgerEntry[], count: number }>
  /** The stored text of entries fromSeq..toSeq (null where none is stored): what verification reads. */
  raw (tenantId: string, fromSeq: number, toSeq: number): Promise<Array<string | null>>
  /** Removes, from the front, up to `max` entries older than `beforeMs`; answers how many. */
  removeBefore (tenantId: string, beforeMs: number, max: number): Promise<number>
}
