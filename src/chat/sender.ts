import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { LaneRunner } from './lane-runner.ts'
import type { ChatMetrics } from './metrics.ts'
import type { OutboxEntry, Transport } from './outbound/messenger.ts'
import { maskPhone, shardOf } from './shards.ts'
import { deadLetterId, type ChatStore, type DeadLetter, type Next, type SendWork } from './store.ts'

// The sender drains the outboxes, apart from the turn workers: one phone's replies strictly in order (its lease
// holds the phone while a reply is out), many phones side by side. A failing or slow recipient holds only its
// own phone: the call has a timeout, and the phone is released with a backoff (or the provider's Retry-After)
// so other phones go on. A reply is retried until the horizon (the provider's 24-hour window by default), then
// kept as a dead letter with the reason; a refusal (4xx) is a dead letter at once.

export interface SenderOptions {
  owner: string
  leaseMs: number
  concurrency: number
  shards: number
  horizonMs: number
  log: FastifyBaseLogger
  metrics: ChatMetrics
  clock: () => number
  crashPoint: (name: 'send-before-ack') => void
  /** Shutdown gave the phone back: another instance may take it now. */
  handedBack: (phone: string) => void
}

/** Exponential with jitter: 0.5 s, 1 s, 2 s ... at most a minute. */
export const sendBackoffMs = (tries: number): number => Math.min(60_000, 500 * 2 ** Math.min(tries, 10)) * (0.75 + Math.random() / 2)

export class Sender {
  readonly runner: LaneRunner<SendWork>

  constructor (private readonly store: ChatStore, private readonly transport: Transport, private readonly opts: SenderOptions) {
    this.runner = new LaneRunner({
      ...opts,
      lane: 'send',
      store,
      take: async (phone) => await store.takeSend(phone, opts.owner, opts.leaseMs),
      step: async (work, stopping) => await this.send(work, stopping),
    })
  }

  private async send (work: SendWork, stopping: AbortSignal): Promise<Next<SendWork> | undefined> {
    const { phone } = work
    const log = this.opts.log.child({ phone: maskPhone(phone) })
    let entry: OutboxEntry
    try {
      entry = JSON.parse(work.entry) as OutboxEntry
    } catch {
      return await this.bury(work, undefined, 'the outbox entry is not readable JSON', log)
    }
    const age = this.opts.clock() - entry.at
    if (age > this.opts.horizonMs) return await this.bury(work, entry, `not delivered within ${this.opts.horizonMs} ms`, log)
    const started = performance.now()
    const delivery = await this.transport.deliver(entry, stopping)
    const ms = Math.round(performance.now() - started)
    if (delivery.kind === 'ok') {
      this.opts.crashPoint('send-before-ack')
      const next = await this.store.sent(phone, this.opts.owner, work.entry, this.opts.leaseMs)
      this.opts.metrics.sent.inc()
      log.info({ replyId: entry.id, type: entry.body.type, ms, tries: work.tries + 1, outcome: 'sent' }, 'chat reply sent')
      return next.kind === 'lost' ? undefined : next
    }
    if (delivery.kind === 'refused') return await this.bury(work, entry, delivery.reason, log)
    if (stopping.aborted) {
      // shutdown cut the call short: not the recipient's fault, hand the phone back as it is
      await this.runner.handBack(phone)
      return undefined
    }
    const delay = delivery.retryAfterMs ?? sendBackoffMs(work.tries)
    if (age + delay > this.opts.horizonMs) return await this.bury(work, entry, `${delivery.reason}; retries would pass the horizon`, log)
    this.opts.metrics.sendRetried.inc()
    log.warn({ replyId: entry.id, tries: work.tries + 1, reason: delivery.reason, retryInMs: Math.round(delay), outcome: 'retry' }, 'chat reply not delivered: retried later')
    await this.store.release('send', phone, this.opts.owner, delay, true)
    this.runner.later(phone, delay)
    return undefined
  }

  private async bury (work: SendWork, entry: OutboxEntry | undefined, reason: string, log: FastifyBaseLogger): Promise<Next<SendWork> | undefined> {
    const letter: DeadLetter = {
      id: deadLetterId(shardOf(work.phone, this.opts.shards), randomUUID()),
      lane: 'send',
      phone: work.phone,
      tenantId: entry?.tenantId,
      reason,
      at: this.opts.clock(),
      tries: work.tries + 1,
      payload: work.entry,
    }
    const next = await this.store.sent(work.phone, this.opts.owner, work.entry, this.opts.leaseMs, letter)
    if (next.kind === 'lost') return undefined
    this.opts.metrics.deadLetters.inc({ lane: 'send' })
    log.error({ replyId: entry?.id, reason, deadLetter: letter.id, outcome: 'dead-letter' }, 'chat reply given up: kept as a dead letter')
    return next
  }
}
