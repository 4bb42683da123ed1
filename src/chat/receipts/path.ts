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
// Turns first (mayApply below is the one rule): in one process the statuses share the event loop and the cores
// with the members' turns, so while a turn or a send is in hand or queued here a status waits, gathering with its
// address's next events into one step, until it has waited the ceiling; with the lanes idle it is applied at once.

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
    unknown: new Counter({ name: 'club_chat_reply_statuses_unknown_total', help: 'Status events for message ids this service did not send (dropped)', registers }),
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
  /** True while this process has members' turns or sends in hand or queued (src/chat/pipeline.ts); none: never. */
  busy?: () => boolean
  /** How long a status may wait for the lanes to go idle before it is applied anyway. */
  ceilingMs?: number
  /** Epoch ms (tests). */
  clock?: () => number
}

const RETRY_MS = 1_000
const MAX_TRIES = 5
const CEILING_MS = 1_000
/** While statuses wait on busy lanes, how often the lanes are looked at again (they may have gone idle). */
const RECHECK_MS = 20

/** The priority: statuses are applied now when no member's turn is waiting on this process, or once waited `ceilingMs`. */
export function mayApply (busy: boolean, waitedMs: number, ceilingMs: number): boolean {
  return !busy || waitedMs >= ceilingMs
}

/** One address's waiting events; `since`: when the first of them was queued (epoch ms). */
interface Waiting { updates: StatusUpdate[], tries: number, since: number }

export class ReceiptPath {
  // insertion order is `since` order: an address's later events join its entry, a retry rejoins it or goes last
  private readonly waiting = new Map<string, Waiting>()
  private pending = 0
  private running = 0
  private idle: Array<() => void> = []
  private recheck: NodeJS.Timeout | undefined

  constructor (private readonly store: ReceiptStore, private readonly opts: ReceiptPathOptions) {}

  /** Queues one address's events; false when the queue is full (answer 503: the provider retries). */
  offer (address: string, updates: readonly StatusUpdate[]): boolean {
    if (updates.length === 0) return true
    if (this.pending + updates.length > this.opts.maxPending) return false
    const entry = this.waiting.get(address)
    if (entry) entry.updates.push(...updates)
    else this.waiting.set(address, { updates: [...updates], tries: 0, since: this.now() })
    this.pending += updates.length
    this.pump()
    return true
  }

  /** Resolves once nothing is queued or being applied (tests, shutdown). */
  async drained (): Promise<void> {
    if (this.running === 0 && this.waiting.size === 0) return
    await new Promise<void>((resolve) => { this.idle.push(resolve) })
  }

  private now (): number { return (this.opts.clock ?? Date.now)() }

  private pump (): void {
    const ceiling = this.opts.ceilingMs ?? CEILING_MS
    const busy = this.opts.busy?.() ?? false
    const now = this.now()
    while (this.running < this.opts.concurrency) {
      const next = this.waiting.entries().next()
      if (next.done === true) break
      const [address, entry] = next.value
      if (!mayApply(busy, now - entry.since, ceiling)) {
        this.lookAgain(Math.min(RECHECK_MS, entry.since + ceiling - now))
        break
      }
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

  private lookAgain (inMs: number): void {
    if (this.recheck !== undefined) return
    this.recheck = setTimeout(() => {
      this.recheck = undefined
      this.pump()
    }, Math.max(1, inMs))
  }

  private async run (address: string, entry: Waiting): Promise<void> {
    let applied
    try {
      applied = await this.store.apply(address, entry.updates)
    } catch (err) {
      if (entry.tries + 1 >= MAX_TRIES) {
        this.opts.log.error({ err, statuses: entry.updates.length }, 'chat receipts: dropped after Redis kept failing')
        return
      }
      await new Promise((resolve) => setTimeout(resolve, this.opts.retryMs ?? RETRY_MS))
      this.requeue(address, { updates: entry.updates, tries: entry.tries + 1, since: entry.since })
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
  private requeue (address: string, entry: Waiting): void {
    const newer = this.waiting.get(address)
    this.waiting.set(address, { updates: [...entry.updates, ...(newer?.updates ?? [])], tries: entry.tries, since: newer?.since ?? this.now() })
    this.pending += entry.updates.length
  }
}
