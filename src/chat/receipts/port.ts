import type { OutboundMessage } from '../outbound/messages.ts'
import { mergeReceipt, type Failure, type Progress, type Receipt, type StatusUpdate } from '../provider/receipts.ts'

// Each reply the service sent keeps the provider's message id from the send's answer and its latest status.
// Status events carry the recipient's address, so a receipt lives under the phone's hash tag, beside its outbox.

/** What the sender records once the provider took a reply. */
export interface SentReply {
  address: string
  messageId: string
  /** the outbox entry's id (also the send's idempotency id) */
  replyId: string
  tenantId: string | undefined
  /** `update`: an order update or reminder the member must get; `reply`: the conversation's own */
  kind: 'update' | 'reply'
  /** the update's kind, and its template, sent instead when it failed outside the window (src/chat/updates.ts) */
  update?: string
  template?: OutboundMessage
  at: number
}

export type Applied =
  | { messageId: string, known: false }
  | { messageId: string, known: true, sent: SentReply, before: Receipt, after: Receipt }

export interface ReceiptStore {
  /** Remembers a reply the provider took; its receipt starts empty (accepted). */
  recordSent (reply: SentReply): Promise<void>
  /** Applies one address's status events, in one step; each message id once, with its receipt before and after. */
  apply (address: string, updates: readonly StatusUpdate[]): Promise<Applied[]>
  /** The receipts of these replies of the address, by reply id (replies never recorded as sent left out). */
  receiptsOfReplies (address: string, replyIds: readonly string[]): Promise<Map<string, Receipt>>
}

/** How long a receipt is kept: as long as the conversation's history. */
export const receiptTtlMs = (historyDays: number): number => historyDays * 24 * 60 * 60_000

/** The length of a period of the reply ids' keys (part of their names: fixed for the life of the data). */
export const SENT_PERIOD_MS = 30 * 24 * 60 * 60_000

/** The period of a reply id written at `at` (epoch ms, the writer's clock). */
export const sentPeriod = (at: number): number => Math.floor(at / SENT_PERIOD_MS)

/**
 * The periods whose reply ids may still point at a receipt at `now`: from that of the oldest receipt kept to the
 * next (another instance's clock may be ahead).
 */
export function livePeriods (now: number, ttlMs: number): number[] {
  const periods: number[] = []
  for (let p = sentPeriod(now - ttlMs); p <= sentPeriod(now) + 1; p++) periods.push(p)
  return periods
}

/** The updates of one address grouped by message id, in the order each id first appears. */
export function byMessage (updates: readonly StatusUpdate[]): Map<string, StatusUpdate[]> {
  const grouped = new Map<string, StatusUpdate[]>()
  for (const u of updates) grouped.set(u.messageId, [...(grouped.get(u.messageId) ?? []), u])
  return grouped
}

export const foldReceipt = (receipt: Receipt, updates: readonly StatusUpdate[]): Receipt => updates.reduce(mergeReceipt, receipt)

/** The stored fields of a receipt (each status's earliest time; the earliest failure) read back as a receipt. */
export function receiptOfFields (fields: { sent?: number, delivered?: number, read?: number, failed?: Failure }): Receipt {
  const progress = (['read', 'delivered', 'sent'] as const).find((p: Progress) => fields[p] !== undefined)
  return {
    ...(progress ? { progress, progressAt: fields[progress] } : {}),
    ...(fields.failed ? { failure: fields.failed } : {}),
  }
}
