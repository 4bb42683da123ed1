import type { FastifyBaseLogger } from 'fastify'
import type { LaneRunner } from './lane-runner.ts'
import type { ChatStore, Lane } from './store/index.ts'

// Finds the phones nobody may be on any more, without polling the shards: work normally reaches a runner by
// a wake-up (the webhook, a commit, another instance's announcement), so every shard is swept only when that
// chain may have broken: at start (a crashed instance's phones), when another instance stops beating (it died
// or stopped: its leases and backoffs are nobody's now) and when the connection to Redis comes back (wake-ups
// may have been lost). Each instance beats once a second into one small hash; one that misses GONE_AFTER_MS
// is reported to one survivor only, and once more GONE_AFTER_MS later if it is still silent: reported while only
// slow, it may take phones after that sweep and stop before its next beat lists it again (heartbeat-1.lua). A
// dead instance's phones are therefore taken within about
// GONE_AFTER_MS + BEAT_MS of its death, plus what is left of their lease; an idle instance sends one command
// a second.

const BEAT_MS = 1_000
const GONE_AFTER_MS = 3_000
/** Phones of a lane taken from one shard per sweep; a full answer is followed by another look a lease later. */
const SWEEP_LIMIT = 500

export interface RecoveryOptions {
  store: Pick<ChatStore, 'due' | 'heartbeat' | 'leave'>
  owner: string
  shards: number
  leaseMs: number
  runners: Record<Lane, Pick<LaneRunner<unknown>, 'offer' | 'later'>>
  log: FastifyBaseLogger
  /** Told at every sweep of every shard: what else wake-ups may have missed is read again then (the handoff deadlines). */
  swept?: () => void
}

export class Recovery {
  private beat: NodeJS.Timeout | undefined
  private readonly followUps = new Set<NodeJS.Timeout>()
  private othersBeating = true

  /**
   * True when no other instance beat in time at this one's last heartbeat: nobody runs lanes to hear a wake-up.
   * False until the first beat answers. One that starts meanwhile is seen a beat later at most, and sweeps every
   * shard as it starts.
   */
  get alone (): boolean { return !this.othersBeating }

  constructor (private readonly opts: RecoveryOptions) {}

  /**
   * Beats once now, before this instance takes anything: otherwise it is listed only a beat after start, and one
   * that dies or stops in its first second holding phones would never be reported gone.
   */
  join (): void { this.heartbeat().catch(() => {}) }

  /** Sweeps every shard now and starts beating. */
  start (): void {
    this.sweepAll('start')
    this.beat ??= setInterval(() => { this.heartbeat().catch(() => {}) }, BEAT_MS)
  }

  async stop (): Promise<void> {
    clearInterval(this.beat)
    for (const timer of this.followUps) clearTimeout(timer)
    this.followUps.clear()
    await this.opts.store.leave(this.opts.owner).catch(() => {})
  }

  /** Every shard once, side by side; each phone offered now or when its lease or backoff ends. */
  sweepAll (reason: string): void {
    this.opts.log.info({ reason }, 'chat sweep of every shard')
    this.opts.swept?.()
    for (let s = 0; s < this.opts.shards; s++) {
      this.sweep(
        s
      ).catch((err: Error) => { this.opts.log.warn({ err, shard: s }, 'chat sweep cannot reach the store') })
    }
  }

  private async heartbeat (): Promise<void> {
    try {
      const { gone, others } = await this.opts.store.heartbeat(this.opts.owner, GONE_AFTER_MS)
      this.othersBeating = others > 0
      if (gone.length > 0) this.sweepAll(`${gone.length} instance(s) stopped beating`)
    } catch (err) {
      this.opts.log.warn({ err }, 'chat heartbeat cannot reach the store')
    }
  }

  private async sweep (shard: number): Promise<void> {
    const found = await this.opts.store.due(shard, { turn: SWEEP_LIMIT, send: SWEEP_LIMIT })
    for (const lane of ['turn', 'send'] as const) {
      const runner = this.opts.runners[lane]
      for (const w of found[lane]) if (w.inMs > 0) runner.later(w.phone, w.inMs)
      runner.offer(found[lane].filter((w) => w.inMs === 0).map((w) => w.phone))
    }
    if (found.turn.length < SWEEP_LIMIT && found.send.length < SWEEP_LIMIT) return
    const timer = setTimeout(() => {
      this.followUps.delete(timer)
      this.sweep(shard).catch(() => {})
    }, this.opts.leaseMs)
    this.followUps.add(timer)
  }
}
