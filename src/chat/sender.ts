import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { LaneRunner } from './lane-runner.ts'
import type { SendStage } from './worker.ts'
import type { ChatMetrics } from './metrics.ts'
import type { OutboxEntry, Transport } from './outbound/transport.ts'
import { PaceGate, type Pace } from './outbound/pace.ts'
import { shardOf } from '../stores/shards.ts'
import { maskPhone } from './mask-phone.ts'
import { deadLetterId, type ChatStore, type DeadLetter, type Next, type SendWork, type SentReply, type Taken } from './store/index.ts'

// The sender, stages 5 and 6 of src/chat/pipeline.ts, drains the outboxes, apart from the turn workers: one phone's replies strictly in order (its lease
// holds the phone while a reply is out), many phones side by side. A failing or slow recipient holds only its
// own phone: the call has a timeout, and the phone is released with a backoff (or the provider's Retry-After)
// so other phones go on. A reply is retried until the horizon (the provider's 24-hour window by default), then
// kept as a dead letter with the reason; a refusal (4xx) is a dead letter at once.
//
// Every send first waits for its turn in the business number's pace (src/chat/outbound/pace.ts), shared by all
// instances: a near turn is waited for with the phone in hand, a far one (a hold) gives the phone back. A
// throttling answer (429, or the provider's throttling codes) holds the number for its Retry-After and gives the
// phone back for as long; neither counts as a failed attempt, so it never leads to a dead letter before the
// horizon, and other numbers' schedules are not touched.
//
// A reply the provider took is recorded (removed from the outbox, its receipt started) in one script. When Redis
// cannot be reached for it (a restart, a failover, a dropped connection), the process keeps the record and makes
// it once Redis answers again, whoever holds the lease by then: the reply is not sent again. Only a process that
// dies between the provider's answer and the record leaves it to be re-sent, with the same idempotency id. So that
// another instance does not send it again meanwhile, an instance whose connection comes back leaves the phones
// whose leases ran out in other instances' hands to them for a while (spare).

export interface SenderOptions {
  owner: string
  leaseMs: number
  concurrency: number
  shards: number
  horizonMs: number
  /** The provider's pace, and the business number it is kept for. */
  pace: Pace
  businessNumber: string
  log: FastifyBaseLogger
  metrics: ChatMetrics
  clock: () => number
  crashPoint: (name: 'send-before-ack') => void
  /** Shutdown gave the phone back: another instance may take it now. */
  handedBack: (phone: string) => void
  /** The receipt a reply the provider took and named starts with (src/chat/receipts). */
  receiptOf: (entry: OutboxEntry, messageId: string) => SentReply
  /** An update with a template was refused as the window is closed: queue the template (src/chat/updates.ts). */
  windowClosed: (entry: OutboxEntry) => Promise<void>
}

/** How long a throttled number waits when the provider gives no Retry-After. */
const THROTTLE_HOLD_MS = 1_000
/** The pair rate limit (131056) allows about one message every 6 seconds to one person: that phone alone waits so long. */
const PAIR_RATE_HOLD_MS = 6_000
/** A send waits for its turn of the provider's pace with the phone in hand when the turn is this near. */
const PACE_MAX_WAIT_MS = 1_000
/**
 * One ask of the pace takes the turns of every send waiting, up to this far ahead (a few round trips to Redis under
 * load); a hold another instance learns of meanwhile may see this much of ours go after it.
 */
const PACE_HORIZON_MS = 50

/** A record that could not reach Redis is tried again this often (each try also waits out the client's reconnection). */
const RECORD_RETRY_MS = 100

/** A reply the provider took whose record has not reached Redis yet. */
interface Unrecorded { entry: string, replyId: string, receipt: SentReply | undefined }

/**
 * A send's work with when (performance clock) the script that leased the phone for it was asked (a take, a commit, the
 * record of the reply before): the lease runs from then at the earliest. Undefined: not known, the send renews first.
 */
type Leased = SendWork & { leasedAt?: number }

/** The next work, leased by a script asked at `asked`. */
const leasedBy = (next: Next<SendWork>, asked: number): Next<Leased> => next.kind === 'more' ? { kind: 'more', work: { ...next.work, leasedAt: asked } } : next

/** Exponential with jitter: 0.5 s, 1 s, 2 s ... at most a minute. */
const sendBackoffMs = (tries: number): number => Math.min(60_000, 500 * 2 ** Math.min(tries, 10)) * (0.75 + Math.random() / 2)

export class Sender implements SendStage {
  readonly runner: LaneRunner<Leased>
  /** Until when (epoch ms) this instance knows the number is held: a send whose turn came while the 429 was on its way waits too. */
  private heldUntil = 0
  private readonly gate: PaceGate
  /** Replies the provider took that Redis could not record yet, by phone (a phone sends one reply at a time). */
  private readonly unrecorded = new Map<string, Unrecorded>()
  private recording: Promise<void> | undefined
  private stopped = false
  /** Until when (epoch ms) other instances' run-out send leases are spared (spare). */
  private spareUntil = 0

  constructor (private readonly store: ChatStore, private readonly transport: Transport, private readonly opts: SenderOptions) {
    this.gate = new PaceGate(opts.pace, PACE_MAX_WAIT_MS, PACE_HORIZON_MS)
    this.runner = new LaneRunner({
      ...opts,
      lane: 'send',
      store,
      take: async (phone) => await this.take(phone),
      step: async (work, stopping) => await this.send(work, stopping),
    })
  }

  /**
   * The owner a commit may lease the outbox it wakes to, or undefined while this sender has enough in hand, or
   * spares other owners' leases (the take decides then). A commit queuing replies for this sender has their turns
   * in the provider's pace asked for now, so that the ask goes to Redis with the commit.
   */
  leaseOwner (replies = 0): string | undefined {
    if (this.runner.saturated || Date.now() < this.spareUntil) return undefined
    if (replies > 0) this.gate.reserve(this.opts.businessNumber, replies)
    return this.opts.owner
  }

  /**
   * The connection to Redis came back: for `ms`, a phone whose send lease ran out in another instance's hands is
   * left to it. That instance may have had its head delivered while Redis was away, and records it once its own
   * connection is back (its reconnection tries are at most 2 s apart, src/plugins/redis.ts); taken meanwhile, the
   * reply would be sent twice.
   */
  spare (ms: number): void { this.spareUntil = Math.max(this.spareUntil, Date.now() + ms) }

  /**
   * Takes an outbox a commit filled: already leased to this sender (`send`, by the commit asked at `leasedAt` on the
   * performance clock), or to be taken.
   */
  handOver (phone: string, send: SendWork | undefined, leasedAt?: number): void {
    if (send) this.runner.adopt(phone, leasedAt === undefined ? send : { ...send, leasedAt })
    else this.runner.offer([phone])
  }

  /**
   * Takes the phone's outbox, sparing other instances' run-out leases while this instance spares. A take sent before
   * the connection dropped runs once it is back without sparing: a lease it took over then is given back, as it was.
   */
  private async take (phone: string): Promise<Taken<Leased>> {
    const asked = performance.now()
    const taken = await this.store.takeSend(phone, this.opts.owner, this.opts.leaseMs, Math.max(0, this.spareUntil - Date.now()))
    const spareMs = this.spareUntil - Date.now()
    if (taken.kind !== 'ok') return taken
    if (taken.work.from === undefined || spareMs <= 0) return { kind: 'ok', work: { ...taken.work, leasedAt: asked } }
    await this.store.spare(phone, this.opts.owner, taken.work.from)
    return { kind: 'busy', inMs: spareMs }
  }

  /** Replies taken by the provider and kept here until Redis records them (tests, shutdown). */
  get unrecordedCount (): number { return this.unrecorded.size }

  /** Stops the lane; a record still kept gets one last try within the grace, then what is left is named in the log. */
  async stop (graceMs: number): Promise<void> {
    const started = Date.now()
    await this.runner.stop(graceMs)
    this.stopped = true
    const left = Math.max(0, graceMs - (Date.now() - started))
    if (this.unrecorded.size > 0) await Promise.race([this.recordPass(), new Promise((resolve) => setTimeout(resolve, left).unref())])
    if (this.unrecorded.size === 0) return
    this.opts.log.error({ replyIds: [...this.unrecorded.values()].map((u) => u.replyId), outcome: 'unrecorded' },
      'chat replies the provider took were not recorded before shutdown: whoever takes their phones sends them again, with the same idempotency id')
  }

  private async send (work: Leased, stopping: AbortSignal): Promise<Next<Leased> | undefined> {
    const { phone } = work
    // the phone in each line, not a child logger per send: most sends write none (their line is at debug)
    const kept = this.unrecorded.get(phone)
    // the head was delivered by this process already: record it, never send it again
    if (kept?.entry === work.entry) return await this.record(phone, kept)
    // a record kept for another head: the head moved on, so it was recorded (its answer lost with the connection)
    if (kept) this.unrecorded.delete(phone)
    let entry: OutboxEntry
    try {
      entry = JSON.parse(work.entry) as OutboxEntry
    } catch {
      return await this.bury(work, undefined, 'the outbox entry is not readable JSON')
    }
    const age = this.opts.clock() - entry.at
    if (age > this.opts.horizonMs) return await this.bury(work, entry, `not delivered within ${this.opts.horizonMs} ms`)
    // Redis failing here goes up like any store failure (the lane tries the phone again); shutdown hands it back
    const turn = await this.gate.turn(this.opts.businessNumber, stopping).catch((err: unknown) => { if (stopping.aborted) return undefined; throw err })
    if (!turn) {
      await this.runner.handBack(phone)
      return undefined
    }
    if (turn.kind === 'later') return await this.later(phone, turn.inMs)
    const held = this.heldUntil - Date.now()
    if (held > 0) return await this.later(phone, held)
    // the commit is fenced by the lease, the send must be too: a process paused past its lease (and resumed) or
    // slowed by the pace may have lost the phone to another instance, which may have delivered this reply already
    const until = await this.holds(phone, work.leasedAt)
    if (until === undefined) {
      this.opts.log.warn(
        { phone: maskPhone(phone), replyId: entry.id, outcome: 'lease-lost' },
        'chat reply not sent: the phone\'s lease was lost to another instance'
      )
      return undefined
    }
    const started = performance.now()
    // asked again right before the request's first byte is written (after any wait for a connection): a pause
    // or a slow connect between the renewal and the socket must not send late
    const delivery = await this.transport.deliver(entry, stopping, () => performance.now() < until)
    const ms = Math.round(performance.now() - started)
    if (delivery.kind === 'fenced') {
      // nothing left: the phone goes back without an attempt counted, to whoever holds it now (if not us, a no-op)
      this.opts.log.warn(
        { phone: maskPhone(phone), replyId: entry.id, ms, outcome: 'lease-lost' },
        'chat reply not sent: the lease ran out before the request was written'
      )
      return await this.later(phone, 0)
    }
    if (delivery.kind === 'ok') {
      this.opts.crashPoint('send-before-ack')
      this.opts.metrics.sent.inc()
      // at debug: the turn's line names its replies, club_chat_replies_sent_total counts them and the receipt follows
      // each one; a reply not sent is a warning (docs/operations.md, Logs)
      this.opts.log.debug({ phone: maskPhone(phone), replyId: entry.id, type: entry.body.type, ms, tries: work.tries + 1, outcome: 'sent' }, 'chat reply sent')
      const receipt = delivery.messageId ? this.opts.receiptOf(entry, delivery.messageId) : undefined
      return await this.record(phone, { entry: work.entry, replyId: entry.id, receipt })
    }
    if (delivery.kind === 'refused' && delivery.windowClosed && entry.template) {
      // an update outside the 24-hour window (131047): its template goes instead, behind the phone's other replies
      const asked = performance.now()
      const next = await this.store.sent(phone, this.opts.owner, work.entry, this.opts.leaseMs)
      await this.opts.windowClosed(entry)
      this.opts.log.warn(
        { phone: maskPhone(phone), replyId: entry.id, reason: delivery.reason, outcome: 'template' },
        'chat update refused outside the 24-hour window: its template is queued'
      )
      return next.kind === 'lost' ? undefined : leasedBy(next, asked)
    }
    if (delivery.kind === 'refused') {
      const reason = delivery.windowClosed ? `the member's 24-hour window is closed (131047): ${delivery.reason}` : delivery.reason
      return await this.bury(work, entry, reason)
    }
    if (delivery.kind === 'throttled') {
      const holdMs = delivery.retryAfterMs ?? (delivery.scope === 'phone' ? PAIR_RATE_HOLD_MS : THROTTLE_HOLD_MS)
      if (delivery.scope === 'number') {
        this.heldUntil = Math.max(this.heldUntil, Date.now() + holdMs)
        await this.opts.pace.hold(this.opts.businessNumber, holdMs)
      }
      this.opts.metrics.sendRetried.inc()
      this.opts.log.warn(
        { phone: maskPhone(phone), replyId: entry.id, scope: delivery.scope, reason: delivery.reason, retryInMs: holdMs, outcome: 'throttled' },
        'chat reply throttled by the provider: sent later'
      )
      return await this.later(phone, holdMs)
    }
    if (stopping.aborted) {
      // shutdown cut the call short: not the recipient's fault, hand the phone back as it is
      await this.runner.handBack(phone)
      return undefined
    }
    const delay = delivery.retryAfterMs ?? sendBackoffMs(work.tries)
    if (age + delay > this.opts.horizonMs) return await this.bury(work, entry, `${delivery.reason}; retries would pass the horizon`)
    this.opts.metrics.sendRetried.inc()
    this.opts.log.warn(
      { phone: maskPhone(phone), replyId: entry.id, tries: work.tries + 1, reason: delivery.reason, retryInMs: Math.round(delay), outcome: 'retry' },
      'chat reply not delivered: retried later'
    )
    await this.store.release('send', phone, this.opts.owner, delay, true)
    this.runner.later(phone, delay)
    return undefined
  }

  /**
   * Records a reply the provider took. When Redis cannot be reached the record is kept here, tried again until it
   * goes through (recordKept), and the error goes up (the lane looks at the phone again after a lease, and finds
   * the kept record before sending anything).
   */
  private async record (phone: string, kept: Unrecorded): Promise<Next<Leased> | undefined> {
    let next: Next<SendWork>
    const asked = performance.now()
    try {
      next = await this.store.delivered(phone, this.opts.owner, kept.entry, this.opts.leaseMs, kept.receipt)
    } catch (err) {
      if (!this.unrecorded.has(phone)) {
        this.opts.log.warn(
          { phone: maskPhone(phone), err, replyId: kept.replyId, outcome: 'unrecorded' },
          'chat reply sent but not recorded: kept in this process until Redis answers'
        )
      }
      this.keep(phone, kept)
      throw err
    }
    this.recorded(phone, kept)
    return next.kind === 'lost' ? undefined : leasedBy(next, asked)
  }

  private keep (phone: string, kept: Unrecorded): void {
    this.unrecorded.set(phone, kept)
    this.recording ??= this.recordKept().finally(() => { this.recording = undefined })
  }

  private recorded (phone: string, kept: Unrecorded): void {
    if (this.unrecorded.get(phone) !== kept) return
    this.unrecorded.delete(phone)
    this.opts.metrics.recordedLate.inc()
    this.opts.log.info(
      { phone: maskPhone(phone), replyId: kept.replyId, outcome: 'recorded-late' },
      'chat reply recorded once Redis answered again: not sent twice'
    )
  }

  /**
   * Tries every kept record until none is left, each try waiting out the client's reconnection: the record goes
   * out as soon as the connection is back, before another instance may find the phone's lease ended and send the
   * reply again. A record that leaves more replies hands the phone to the lane, leased to this sender.
   */
  private async recordKept (): Promise<void> {
    while (this.unrecorded.size > 0 && !this.stopped) {
      await this.recordPass()
      if (this.unrecorded.size > 0) await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS))
    }
  }

  private async recordPass (): Promise<void> {
    await Promise.all([...this.unrecorded].map(async ([phone, kept]) => {
      try {
        const asked = performance.now()
        const next = leasedBy(await this.store.delivered(phone, this.opts.owner, kept.entry, this.opts.leaseMs, kept.receipt), asked)
        this.recorded(phone, kept)
        if (next.kind === 'more' && !this.stopped) this.runner.adopt(phone, next.work)
      } catch {}
    }))
  }

  /**
   * Answers until when (performance clock) this sender may send on the phone: three quarters of a lease from when the
   * script that last leased it was asked for (the lease runs from then at the earliest; the last quarter is a margin
   * for the way to the provider), or undefined when the lease was lost. The lease the work came with does when it was
   * asked for less than a quarter of a lease ago (at least half a lease left for the way to the socket, where the
   * transport asks again); else it is renewed first. An answer that came back after its time may have sat unread
   * while the process was paused, and the lease passed on since: ask again.
   */
  private async holds (phone: string, leasedAt: number | undefined): Promise<number | undefined> {
    const leaseMs = this.opts.leaseMs
    if (leasedAt !== undefined && performance.now() - leasedAt < leaseMs / 4) return leasedAt + leaseMs * 3 / 4
    for (let ask = 0; ask < 3; ask++) {
      const until = performance.now() + this.opts.leaseMs * 3 / 4
      if (!await this.store.renew('send', phone, this.opts.owner, this.opts.leaseMs)) return undefined
      if (performance.now() < until) return until
    }
    return undefined
  }

  /** Gives the phone back until `inMs` from now without counting an attempt (the pace, not the reply, is why). */
  private async later (phone: string, inMs: number): Promise<undefined> {
    await this.store.release('send', phone, this.opts.owner, inMs, false)
    this.runner.later(phone, inMs)
    return undefined
  }

  private async bury (work: SendWork, entry: OutboxEntry | undefined, reason: string): Promise<Next<Leased> | undefined> {
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
    const asked = performance.now()
    const next = await this.store.sent(work.phone, this.opts.owner, work.entry, this.opts.leaseMs, letter)
    if (next.kind === 'lost') return undefined
    this.opts.metrics.deadLetters.inc({ lane: 'send' })
    this.opts.log.error(
      { phone: maskPhone(work.phone), replyId: entry?.id, reason, deadLetter: letter.id, outcome: 'dead-letter' },
      'chat reply given up: kept as a dead letter'
    )
    return leasedBy(next, asked)
  }
}
