import type { FastifyBaseLogger } from 'fastify'
import { shardOf } from '../../stores/shards.ts'
import type { InboxStore } from './store.ts'

// The handoff's time-outs, woken at their deadlines instead of looked for on a timer: an instance running the
// lanes keeps one timer per shard, set at the earliest deadline it knows there. It learns a deadline when one of
// its own turns asks for a person, and reads every shard's earliest again when it may have missed some (at
// start, when another instance stopped beating, when Redis or the wake-up subscription is back), so a request
// made by an instance that died since is still handed back. At a deadline the shard's due requests are handed
// back (several instances may: the flag's compare-and-set lets one apologise) and the shard's next deadline is
// read. An idle instance sends nothing for the handoff; a request is handed back within milliseconds of its
// deadline.

/** The longest wait setTimeout takes (about 24.8 days); a later deadline is looked at again then. */
const MAX_WAIT_MS = 2 ** 31 - 1
/** Node may run a timer a millisecond early: the request would not be due yet. */
const LATE_MS = 1

export interface HandoffDeadlinesOptions {
  store: Pick<InboxStore, 'nextHandoffDeadline'>
  /** Hands back the shard's requests whose deadline passed (ChatInbox.expireDue). */
  expire: (shard: number) => Promise<number>
  shards: number
  /** The chat's clock (epoch ms), the one the deadlines were set by. */
  clock: () => number
  log: FastifyBaseLogger
}

export class HandoffDeadlines {
  private readonly armed = new Map<number, { at: number, timer: NodeJS.Timeout }>()
  private running = false

  constructor (private readonly opts: HandoffDeadlinesOptions) {}

  /** Takes deadlines from now on; reads none (readAll does, called at every sweep of src/chat/recovery.ts). */
  start (): void {
    this.running = true
  }

  stop (): void {
    this.running = false
    for (const { timer } of this.armed.values()) clearTimeout(timer)
    this.armed.clear()
  }

  /** Every shard's earliest deadline, read again: some may have been set where this instance did not see it. */
  readAll (): void {
    for (let s = 0; s < this.opts.shards; s++) this.read(s)
  }

  /** A phone's request for a person, made here: handed back at `at` unless taken by then. */
  requested (phone: string, at: number): void { this.due(shardOf(phone, this.opts.shards), at) }

  private due (shard: number, at: number): void {
    if (!this.running) return
    const current = this.armed.get(shard)
    if (current && current.at <= at) return
    clearTimeout(current?.timer)
    const timer = setTimeout(() => {
      this.armed.delete(shard)
      this.opts.expire(shard)
        .catch((err: Error) => { this.opts.log.warn({ err, shard }, 'chat handoff time-out not handed back: looked at again') })
        .finally(() => { this.read(shard) })
    }, Math.min(MAX_WAIT_MS, Math.max(0, at - this.opts.clock()) + LATE_MS))
    timer.unref()
    this.armed.set(shard, { at, timer })
  }

  private read (shard: number): void {
    this.opts.store.nextHandoffDeadline(shard).then(
      (at) => { if (at !== undefined) this.due(shard, at) },
      // Redis coming back reads every shard again
      (err: Error) => { this.opts.log.warn({ err, shard }, 'chat handoff deadlines not read') })
  }
}
