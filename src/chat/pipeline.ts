import type { FastifyBaseLogger } from 'fastify'
import type { RedisClient } from '../stores/redis-client.ts'
import type { ChatMetrics } from './metrics.ts'
import type { OutboxEntry, Transport } from './outbound/transport.ts'
import type { Pace } from './outbound/pace.ts'
import { Recovery } from './recovery.ts'
import { Sender } from './sender.ts'
import type { AcceptOptions, ChatStore, DeadLetter, Lane, Letter, SentReply } from './store/index.ts'
import { WakeChannel } from './wake.ts'
import { TurnWorker, type TurnHistory, type Turns } from './worker.ts'

// What happens to a message, in order; each stage hands on to the next, never back:
//
// 1. accept       webhook.ts checks the signature and reads the delivery; `accept` below stores each new letter in
//                 its phone's mailbox (store/scripts/accept-4.lua) and offers the phones nobody is on to the turn lane.
// 2. take         the turn lane (worker.ts on lane-runner.ts) leases the phone's mailbox and reads its head with the
//                 session (take-4.lua).
// 3. turn         worker.ts runs the turn in memory: the handoff gate (inbox/handoff-gate.ts), then the bot
//                 (runtime.ts: the machine's transition and its effects on the club's services).
// 4. commit       worker.ts commits session, replies and history in one script fenced by the lease (commit-list.lua),
//                 and hands the phone's outbox to the send lane (leased to it by the commit when nobody was on it).
// 5. send         sender.ts (on lane-runner.ts) waits for the provider's pace and delivers the outbox head through the
//                 provider client (outbound/transport.ts).
// 6. acknowledge  sender.ts removes the delivered head and starts its receipt in one script (delivered-6.lua; kept in
//                 the process until Redis answers when it cannot), or keeps a refused one as a dead letter (pop-6.lua),
//                 and goes on with the next one.
//
// Around the stages: staff and system messages join at 5 (`queued`); a dead letter driven back re-enters at 2 or 5
// (`redrive`); another instance's work arrives over the wake channel (wake.ts), and phones nobody may be on any
// more are found by recovery.ts. With CHAT_LANES=off this instance runs only stage 1 and announces the rest.

/** A turn that failed this many times for a reason other than a lost connection becomes a dead letter. */
const MAX_TURN_TRIES = 5
/**
 * After the connection to Redis comes back, other instances' run-out send leases are left to them this long: each
 * instance is back within 2 s of Redis (its client's reconnection tries), and records what it sent meanwhile first.
 */
const RECONNECT_SPARE_MS = 3_000
/** Work in hand at shutdown gets this long to finish before its leases are left to run out. */
const STOP_GRACE_MS = 4_000

/** The fault suite's crash points (CHAT_CRASH_AT=<point>:<n>): SIGKILL at the n-th time the point is reached. */
function crashPoints (spec: string | undefined): (name: string) => void {
  if (!spec) return () => {}
  const [point, n] = spec.split(':')
  let left = Number(n)
  return (name) => { if (name === point && --left === 0) process.kill(process.pid, 'SIGKILL') }
}

export interface PipelineOptions {
  /** This instance's name on leases and wake-ups. */
  owner: string
  store: ChatStore
  redis: RedisClient | null
  redisKeyPrefix: string
  /** Stage 3: the handoff gate before the bot. */
  turns: Turns
  /** What stage 4 records in the conversation history. */
  history: TurnHistory
  /** Stage 5's provider client, and its pace. */
  transport: Transport
  pace: Pace
  /** Stage 6: the receipt a reply the provider took and named starts with, recorded with its ack (src/chat/receipts). */
  receiptOf: (entry: OutboxEntry, messageId: string) => SentReply
  /** Stage 5 met a closed window for an update: its template is queued instead. */
  windowClosed: (entry: OutboxEntry) => Promise<void>
  chat: {
    shards: number
    leaseMs: number
    lanes: boolean
    turnConcurrency: number
    sendConcurrency: number
    sendHorizonMs: number
    phoneNumberId: string
    crashAt?: string
  }
  clock: () => number
  metrics: ChatMetrics
  log: FastifyBaseLogger
  /** Told at every sweep of every shard (recovery.ts), when wake-ups may have been missed: the handoff deadlines are read again. */
  swept?: () => void
}

export class ChatPipeline {
  private readonly worker: TurnWorker
  private readonly sender: Sender
  private readonly recovery: Recovery
  private readonly wake: WakeChannel | undefined
  private readonly reconnected = (): void => {
    this.sender.spare(RECONNECT_SPARE_MS)
    this.recovery.sweepAll('Redis connection back')
  }

  /** Each try to reconnect (at most 2 s apart): what is queued meanwhile runs once the connection is back, sparing too. */
  private readonly reconnecting = (): void => { this.sender.spare(RECONNECT_SPARE_MS) }

  constructor (private readonly opts: PipelineOptions) {
    const { owner, store, chat, clock, metrics, log } = opts
    const crashPoint = crashPoints(chat.crashAt)
    const lanes = { owner, leaseMs: chat.leaseMs, shards: chat.shards, log, metrics }
    this.wake = opts.redis ? new WakeChannel(opts.redis, opts.redisKeyPrefix, chat.shards, owner) : undefined
    this.sender = new Sender(store, opts.transport, {
      ...lanes,
      concurrency: chat.sendConcurrency,
      horizonMs: chat.sendHorizonMs,
      pace: opts.pace,
      businessNumber: chat.phoneNumberId,
      clock,
      crashPoint,
      handedBack: (phone) => { this.publish('send', [phone]) },
      receiptOf: opts.receiptOf,
      windowClosed: opts.windowClosed,
    })
    this.worker = new TurnWorker(store, opts.turns, opts.history, this.sender, {
      ...lanes,
      concurrency: chat.turnConcurrency,
      maxTries: MAX_TURN_TRIES,
      crashPoint,
      handedBack: (phone) => { this.publish('turn', [phone]) },
    })
    this.recovery = new Recovery({ store, owner, shards: chat.shards, leaseMs: chat.leaseMs, runners: this.runners, log, swept: opts.swept })
  }

  private get runners () { return { turn: this.worker.runner, send: this.sender.runner } }

  /** Stage 1: stores the letters (throws when the store cannot be reached) and offers the phones nobody is on. */
  async accept (letters: Letter[], options?: AcceptOptions): Promise<number> {
    const result = await this.opts.store.accept(letters, options)
    this.opts.metrics.accepted.inc(result.stored)
    // only phones whose mailbox was empty need a worker told: a phone with mail has one on it already (or a timer);
    // what is stored is accepted whatever happens here (a sweep finds a phone nobody was told of)
    try {
      if (result.due.length > 0) {
        this.offer('turn', result.due)
        // more than this instance takes at once: let the others know, if any beat (a single process would publish
        // to its own subscription only)
        if (this.opts.chat.lanes && this.worker.runner.saturated && !this.recovery.alone) this.publish('turn', result.due)
      }
    } catch (err) {
      this.opts.log.error({ err }, 'chat accepted messages not offered to the turn lane')
    }
    return result.stored
  }

  /** Staff and system messages were queued behind the bot's replies: stage 5 looks at the phone. */
  queued (phone: string): void { this.offer('send', [phone]) }

  /** A dead letter back in its phone's mailbox or outbox, where no runner may look: its lane is told. */
  async redrive (id: string): Promise<DeadLetter | undefined> {
    const letter = await this.opts.store.redrive(id)
    if (letter) this.offer(letter.lane, [letter.phone])
    return letter
  }

  /** To this instance's runner, or (CHAT_LANES=off) to the instances that run the lanes. */
  private offer (lane: Lane, phones: string[]): void {
    if (this.opts.chat.lanes) this.runners[lane].offer(phones)
    else this.publish(lane, phones)
  }

  private publish (lane: Lane, phones: string[]): void {
    this.wake?.announce(lane, phones, (err) => { this.opts.log.warn({ err }, 'chat wake-up not published') })
  }

  /** Resolves once the phone has nothing waiting or in progress (mail or replies) on any instance (tests, tools). */
  async idle (phone: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (await this.opts.store.pending(phone)) {
      if (Date.now() > deadline) throw new Error(`chat pipeline of ${phone} still busy after ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  async start (): Promise<void> {
    if (!this.opts.chat.lanes) {
      this.opts.log.info('chat lanes off (CHAT_LANES=off): accepted messages are announced to the instances that run them')
      return
    }
    this.recovery.join()
    this.worker.runner.start()
    this.sender.runner.start()
    await this.wake?.listen((lane, phones) => { this.runners[lane].offer(phones) }, () => { this.recovery.sweepAll('wake-up subscription back') })
    this.recovery.start()
    this.opts.redis?.on('ready', this.reconnected)
    this.opts.redis?.on('reconnecting', this.reconnecting)
  }

  /** SIGTERM: stop taking work, let turns in hand finish (or hand them back), cut sends short and hand them back. */
  async stop (): Promise<void> {
    this.opts.redis?.off('ready', this.reconnected)
    this.opts.redis?.off('reconnecting', this.reconnecting)
    await Promise.all([this.worker.runner.stop(STOP_GRACE_MS), this.sender.stop(STOP_GRACE_MS)])
    await this.recovery.stop()
    await this.wake?.close().catch(() => {})
    if (this.opts.chat.lanes) this.opts.log.info('chat pipeline stopped: leases handed back')
  }
}
