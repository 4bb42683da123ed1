import type { FastifyBaseLogger } from 'fastify'
import { Counter, type Registry } from 'prom-client'
import { shownStatus, type Failure, type StatusUpdate } from '../provider/receipts.ts'
import type { ReceiptStore, SentReply } from './port.ts'

// Status events take a path of their own: the webhook hands them here and answers, and a few workers apply them
// to the receipts, apart from the turn lanes and their mailboxes, so that a flood of receipts never delays or
// blocks a member's turn (Botpress lost inbound messages handling statuses on the messages' path). Events of one
// address waiting together are applied in one step. The queue is bounded: full, the webhook answers 503 and the
// provider sends them again later. What is queued lives in this process only: a crash loses at most the queue,
// and the provider's next event of a message carries its whole status history.

export interface ReceiptMetrics {
  statuses: Counter<'status' | 'club'>
  unknown: Counter
}

export function receiptMetrics (registry: Registry): ReceiptMetrics {
  const registers = [registry]
  return {
    statuses: new Counter({
      name: 'club_chat_reply_statuses_total',
      help: 'Sent replies whose shown status changed, by the new status (sent, delivered, read, failed) and club',
      labelNames: ['status', 'club'],
      registers,
    }),
    unknown: new Counter({
      name: 'club_chat_reply_statuses_unknown_total', help: 'Status events for message ids this service did not send (dropped)', registers
    }),
  }
}

export interface ReceiptPathOptions {
  concurrency: number
  /** Status events held at most; beyond, `offer` refuses. */
  maxPending: number
  metrics: ReceiptMetrics
  log: FastifyBaseLogger
  /** A reply's shown status became failed: what the member must get is mended there (src/chat/index.ts). */
  failed: (sent: SentReply, failure: Failure) => Promise<void>
  /** How long a batch that Redis refused waits before it is tried again. */
  retryMs?: number
}

const RETRY_MS = 1_000
const MAX_TRIES = 5

export class ReceiptPath {
  private readonly waiting = new Map<string, { updates: StatusUpdate[], tries: number }>()
  private pending = 0
  private running = 0
  private idle: Array<() => void> = []

  constructor (private readonly store: ReceiptStore, private readonly opts: ReceiptPathOptions) {}

  /** Queues one address's events; false when the queue is full (answer 503: the provider retries). */
  offer (address: string, updates: readonly StatusUpdate[]): boolean {
    if (updates.length === 0) return true
    if (this.pending + updates.length > this.opts.maxPending) return false
    const entry = this.waiting.get(address)
    if (entry) entry.updates.push(...updates)
    else this.waiting.set(address, { updates: [...updates], tries: 0 })
    this.pending += updates.length
    this.pump()
    return true
  }

  /** Resolves once nothing is queued or being applied (tests, shutdown). */
  async drained (): Promise<void> {
    if (this.running === 0 && this.waiting.size === 0) return
    await new Promise<void>((resolve) => { this.idle.push(resolve) })
  }

  private pump (): void {
    while (this.running < this.opts.concurrency) {
      const next = this.waiting.entries().next()
      if (next.done === true) break
      const [address, entry] = next.value
      this.waiting.delete(address)
      this.pending -= entry.updates.length
      this.running++
      this.run(address, entry).finally(() => {
        this.running--
        this.pump()
        if (this.running === 0 && this.waiting.size === 0) for (const resolve of this.idle.splice(0)) resolve()
      })
    }
  }

  private async run (address: string, entry: { updates: StatusUpdate[], tries: number }): Promise<void> {
    let applied
    try {
      applied = await this.store.apply(address, entry.updates)
    } catch (err) {
      if (entry.tries + 1 >= MAX_TRIES) {
        this.opts.log.error({ err, statuses: entry.updates.length }, 'chat receipts: dropped after Redis kept failing')
        return
      }
      await new Promise((resolve) => setTimeout(resolve, this.opts.retryMs ?? RETRY_MS))
      this.requeue(address, { updates: entry.updates, tries: entry.tries + 1 })
      return
    }
    for (const a of applied) {
      if (!a.known) {
        this.opts.metrics.unknown.inc()
        continue
      }
      const before = shownStatus(a.before)
      const after = shownStatus(a.after)
      if (before === after) continue
      this.opts.metrics.statuses.inc({ status: after, club: a.sent.tenantId ?? 'none' })
      if (after === 'failed' && a.after.failure) {
        await this.opts.failed(a.sent, a.after.failure).catch((err: unknown) => {
          this.opts.log.error({ err, replyId: a.sent.replyId }, 'chat receipts: a failed reply could not be followed up')
        })
      }
    }
  }

  // A retried batch goes back ahead of its address's newer events, and counts again toward the bound.
  private requeue (address: string, entry: { updates: StatusUpdate[], tries: number }): void {
    const newer = this.waiting.get(address)
    this.waiting.set(address, { updates: [...entry.updates, ...(newer?.updates ?? [])], tries: entry.tries })
    this.pending += entry.updates.length
  }
}
