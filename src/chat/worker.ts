import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { InboundMessage } from './inbound.ts'
import { LaneRunner } from './lane-runner.ts'
import type { ChatMetrics } from './metrics.ts'
import type { OutboxEntry } from './outbound/transport.ts'
import type { TurnResult } from './runtime.ts'
import { shardOf } from '../stores/shards.ts'
import { maskPhone } from './mask-phone.ts'
import { decodeMail } from './mail.ts'
import { sessionFields } from './session-fields.ts'
import {
  deadLetterId, isApplied, type ChatStore, type Commit, type Committed, type Next, type Recorded, type SendWork, type SessionState, type TurnWork
} from './store/index.ts'

// The turn worker, stages 2 to 4 of src/chat/pipeline.ts: takes a phone's mailbox with a short lease (renewed while
// it works), computes each turn in memory and commits it in one step with its replies and its history, then hands
// the outbox on to the send stage. A turn that throws is not dropped: the message stays at
// the head and the phone is retried after a backoff; one that keeps failing for a reason that is not a lost
// connection goes to the dead letters after `maxTries`, so it cannot block the phone forever. A take only opens an
// attempt: what counts as a try is a failure, or a worker that died on the message (its instance stopped beating
// while its attempt was open). A slow Redis that lets leases run out delays turns, it never buries one: a commit
// that found the lease moved on gives its attempt back, and an attempt of a live instance is never counted.

export interface TurnWorkerOptions {
  owner: string
  leaseMs: number
  concurrency: number
  shards: number
  maxTries: number
  log: FastifyBaseLogger
  metrics: ChatMetrics
  /** Fault-suite hook: called at named points, may kill the process. */
  crashPoint: (name: 'turn-before-commit') => void
  /** Shutdown gave the phone back: another instance may take it now. */
  handedBack: (phone: string) => void
}

/** Stage 3: a turn computed in memory (the handoff gate, then the bot). */
export interface Turns { run (message: InboundMessage, session: SessionState): Promise<TurnResult> }

/** What a turn records in the conversation history (src/chat/inbox/service.ts): its commit writes it. */
export interface TurnHistory {
  turnRecord (message: InboundMessage, tenantId: string | undefined, replies: readonly OutboxEntry[]): Recorded | undefined
  /** Called in the same tick as the commit of a turn with a record, so that what it sends goes out with it. */
  committing (phone: string, recorded: Recorded): void
}

/** Stage 5 as a commit meets it (src/chat/sender.ts). */
export interface SendStage {
  /**
   * The sender a commit may lease the outbox it wakes to (its owner), or undefined when it is busy. `replies`: how
   * many the commit queues (the sender may ask for their turns of the pace now, beside the commit).
   */
  leaseOwner (replies?: number): string | undefined
  /**
   * A commit queued replies nobody was sending: `send` is the outbox head when the commit (asked at `leasedAt`, on the
   * performance clock) leased it to this sender, for the lease both lanes share (`CHAT_LEASE_MS`).
   */
  handOver (phone: string, send: SendWork | undefined, leasedAt: number): void
}

/** Errors of the connection to Redis: they say nothing about the message, so they do not count as tries. */
function isTransient (err: unknown): boolean {
  const e = err as { name?: string, message?: string, code?: string }
  return e.name === 'MaxRetriesPerRequestError' ||
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection is closed|Stream isn't writeable|connect/i.test(e.message ?? '') ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(e.code ?? '')
}

const turnBackoffMs = (tries: number): number => Math.min(30_000, 500 * 2 ** Math.max(0, tries - 1))
const TRANSIENT_RETRY_MS = 1_000

export class TurnWorker {
  readonly runner: LaneRunner<TurnWork>

  constructor (
    private readonly store: ChatStore,
    private readonly turns: Turns,
    private readonly history: TurnHistory,
    private readonly send: SendStage,
    private readonly opts: TurnWorkerOptions
  ) {
    this.runner = new LaneRunner({
      ...opts,
      lane: 'turn',
      store,
      take: (phone) => store.takeTurn(phone, opts.owner, opts.leaseMs),
      step: (work) => this.turn(work),
    })
  }

  /** One message: skipped if applied, dead-lettered if it keeps failing, else run and committed. */
  private async turn (work: TurnWork): Promise<Next<TurnWork> | undefined> {
    const { phone } = work
    // the phone in each line, not a child logger per turn: a turn writes one line, its child would cost more
    const message = decodeMail(work.message)
    if (!message) return await this.bury(work, 'the mailbox entry is not a readable message', undefined)
    if (isApplied(work.session.applied, message.id)) {
      const next = await this.commit(
        work, { expected: work.session.version, doc: undefined, applied: work.session.applied, message: work.message, replies: [] }, message.id
      )
      if (next) {
        this.opts.metrics.duplicates.inc()
        this.opts.log.info({ phone: maskPhone(phone), messageId: message.id, outcome: 'duplicate' }, 'chat turn skipped: already applied')
      }
      return next
    }
    if (work.open.length > 0) work = { ...work, tries: await this.judge(work) }
    // its workers died on it more often than allowed (the turn may be what kills them)
    if (work.tries > this.opts.maxTries) return await this.bury(work, work.lastError ?? 'the turn never finished', message.id)
    try {
      const result = await this.turns.run(message, work.session)
      this.opts.crashPoint('turn-before-commit')
      const record = this.history.turnRecord(message, result.tenantId, result.replies)
      const replies = result.replies.map((entry) => JSON.stringify(entry))
      const asked = performance.now()
      const committed = this.commit(
        work,
        {
          expected: work.session.version,
          doc: result.doc,
          applied: result.applied,
          message: work.message,
          replies,
          sender: this.send.leaseOwner(replies.length),
          record,
          linkCodes: result.linkCodes
        },
        message.id
      )
      if (record) this.history.committing(phone, record)
      const next = await committed
      if (next) {
        this.opts.metrics.applied.inc()
        this.opts.log.info(
          { phone: maskPhone(phone), messageId: message.id, before: result.before, after: result.after, replies: result.replies.length, outcome: 'applied' },
          'chat turn'
        )
        if (next.senderDue || next.send) this.send.handOver(phone, next.send, asked)
      }
      return next
    } catch (err) {
      const transient = isTransient(err)
      if (!transient && work.tries >= this.opts.maxTries) return await this.bury(work, (err as Error).message.slice(0, 500), message.id)
      const delay = transient ? TRANSIENT_RETRY_MS : turnBackoffMs(work.tries)
      this.opts.metrics.retried.inc()
      this.opts.log.warn(
        { phone: maskPhone(phone), err, messageId: message.id, tries: work.tries, transient, retryInMs: delay, outcome: 'retry' },
        'chat turn failed: retried later'
      )
      await this.store.release('turn', phone, this.opts.owner, delay, !transient, (err as Error).message.slice(0, 500)).catch(() => {})
      this.runner.later(phone, delay)
      return undefined
    }
  }

  /**
   * The tries at the message, once the other owners' open attempts are judged: those whose instance stopped
   * beating died on it (each a try); those of live instances are still running or lost their lease to time (none).
   */
  private async judge (work: TurnWork): Promise<number> {
    const gone = await this.store.gone(work.open)
    if (gone.length === 0) return work.tries
    this.opts.log.warn({ phone: maskPhone(work.phone), gone: gone.length }, 'chat turn: earlier attempts whose instance died are counted as tries')
    return await this.store.endAttempts(work.phone, work.message, gone, true) + 1
  }

  /** Commits; a lost lease is logged (another worker has the phone now), gives the attempt back and ends this drain. */
  private async commit (work: TurnWork, commit: Commit, messageId: string): Promise<Committed | undefined> {
    const next = await this.store.commitTurn(work.phone, this.opts.owner, commit, this.opts.leaseMs)
    if (next.kind !== 'lost') return next
    this.opts.log.warn(
      { phone: maskPhone(work.phone), messageId, outcome: 'lost-lease' },
      'chat turn not committed: the lease moved on; the new holder runs it'
    )
    await this.giveBack(work)
    return undefined
  }

  /** This attempt ended without failing (its lease moved on): no try is counted for it. */
  private async giveBack (work: TurnWork): Promise<void> {
    await this.store.endAttempts(work.phone, work.message, [this.opts.owner], false).catch((err: unknown) => {
      this.opts.log.warn({ err, phone: maskPhone(work.phone) }, 'chat turn could not give its attempt back: it stays open until a commit')
    })
  }

  private async bury (work: TurnWork, reason: string, messageId: string | undefined): Promise<Next<TurnWork> | undefined> {
    const tenantId = tenantOf(work.session.doc)
    const letter = {
      id: deadLetterId(shardOf(work.phone, this.opts.shards), randomUUID()),
      lane: 'turn' as const,
      phone: work.phone,
      tenantId,
      reason,
      at: Date.now(),
      tries: work.tries,
      payload: work.message
    }
    const next = await this.store.deadTurn(work.phone, this.opts.owner, letter, this.opts.leaseMs)
    if (next.kind === 'lost') {
      await this.giveBack(work)
      return undefined
    }
    this.opts.metrics.deadLetters.inc({ lane: 'turn' })
    this.opts.log.error(
      { phone: maskPhone(work.phone), messageId, reason, deadLetter: letter.id, outcome: 'dead-letter' }, 'chat turn given up: kept as a dead letter'
    )
    return next
  }
}

function tenantOf (doc: string | undefined): string | undefined {
  const tenantId: unknown = sessionFields(doc).tenantId
  return typeof tenantId === 'string' ? tenantId : undefined
}
