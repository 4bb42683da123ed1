import type { FastifyBaseLogger } from 'fastify'
import { maskPhone } from './mask-phone.ts'
import type { ChatStore, Lane, Next, Taken } from './store/index.ts'

// Runs one lane of per-phone work (turns, or sends) with a bounded number in flight: phones are offered when
// work arrives for them (the webhook, a commit, another instance's wake-up), retried at a given time (a lease
// or backoff ending), and found by a sweep when nobody may be on them any more (src/chat/recovery.ts). Nothing
// here polls: an idle runner sends nothing to Redis. One phone is never in hand twice here; across instances
// the store's lease keeps it to one, renewed while the phone is in hand and handed back at shutdown.

/** A phone that cannot reach the store is tried again after 0.5 s, 1 s, 2 s ... at most 5 s while it keeps failing. */
const unreachableRetryMs = (failures: number): number => Math.min(5_000, 500 * 2 ** Math.max(0, failures - 1))

export interface LaneRunnerOptions<W> {
  lane: Lane
  store: Pick<ChatStore, 'renew' | 'release'>
  owner: string
  leaseMs: number
  concurrency: number
  /** Leases the phone and answers its first piece of work. */
  take: (phone: string) => Promise<Taken<W>>
  /** Does one piece of work; the next one while the lease is kept, or undefined when the phone is let go. */
  step: (work: W, stopping: AbortSignal) => Promise<Next<W> | undefined>
  /** Shutdown gave the phone back: another instance may take it now. */
  handedBack: (phone: string) => void
  log: FastifyBaseLogger
}

export class LaneRunner<W> {
  private readonly queue = new Set<string>()
  private readonly active = new Set<string>()
  /** Phones offered while in hand: looked at again once their work returns (it may have just ended). */
  private readonly again = new Set<string>()
  private readonly timers = new Map<string, NodeJS.Timeout>()
  /**
   * Phones whose last try could not reach the store, with how many times in a row. Together they hold at most one
   * slot: with one master of a cluster down, its phones' commands wait out the client's retries, and would
   * otherwise fill the lane while the phones on the other masters wait.
   */
  private readonly unreachable = new Map<string, number>()
  private readonly inFlight = new Set<Promise<void>>()
  private readonly stopping = new AbortController()
  private running = false

  constructor (private readonly opts: LaneRunnerOptions<W>) {}

  start (): void {
    if (this.running) return
    this.running = true
  }

  /** Stops taking work, signals the work in hand to hand back, and waits for it at most `graceMs`. */
  async stop (graceMs: number): Promise<void> {
    this.running = false
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
    this.stopping.abort()
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => { timer = setTimeout(resolve, graceMs) }),
    ])
    clearTimeout(timer)
  }

  /** True when offering more would only queue it here (or, stopped, drop it): better let another instance take it. */
  get saturated (): boolean { return !this.running || this.active.size + this.queue.size >= this.opts.concurrency }

  offer (phones: Iterable<string>): void {
    if (!this.running) return
    for (const phone of phones) {
      if (this.active.has(phone)) this.again.add(phone)
      else this.queue.add(phone)
    }
    this.pump()
  }

  /** Offers the phone again in `inMs` (a lease or a backoff ends then). */
  later (phone: string, inMs: number): void {
    if (!this.running || this.timers.has(phone)) return
    this.timers.set(phone, setTimeout(() => {
      this.timers.delete(phone)
      this.offer([phone])
    }, Math.max(0, inMs) + 5))
  }

  /** Gives the lease back at once and says so (shutdown). */
  async handBack (phone: string): Promise<void> {
    await this.opts.store.release(this.opts.lane, phone, this.opts.owner, 0, false)
    this.opts.handedBack(phone)
  }

  /** Takes the phone (unless it was taken for it) and works it while it has work and the lease holds. */
  private async drain (phone: string, stopping: AbortSignal, given?: Taken<W>): Promise<void> {
    const { lane, owner, leaseMs, store, log } = this.opts
    // the lease runs from when the take reached the store: the renewals count from when it was asked for, not from
    // its answer, which a slow Redis brings late
    const asked = performance.now()
    let taken: Taken<W>
    try {
      taken = given ?? await this.opts.take(phone)
    } catch (err) {
      const failures = (this.unreachable.get(phone) ?? 0) + 1
      this.unreachable.set(phone, failures)
      log.warn({ err, lane, phone: maskPhone(phone), failures }, 'chat lane cannot reach the store')
      this.later(phone, unreachableRetryMs(failures))
      return
    }
    this.unreachable.delete(phone)
    if (taken.kind === 'busy') this.later(phone, taken.inMs)
    if (taken.kind !== 'ok') return
    // a renewal that answers lost (or cannot reach the store, so may have lost it) ends the work on the phone: the
    // next step would run while another instance may hold it (a pause past the lease, a slow store)
    let lost = false
    const renew = (): void => {
      store.renew(lane, phone, owner, leaseMs).then((kept) => { if (!kept) lost = true }, (err: unknown) => {
        lost = true
        log.warn({ err, lane, phone: maskPhone(phone) }, 'chat lane could not renew its lease: the phone is let go')
      })
    }
    let renewal: NodeJS.Timeout = setTimeout(() => {
      renew()
      renewal = setInterval(renew, leaseMs / 3)
    }, Math.max(0, asked + leaseMs / 3 - performance.now()))
    try {
      let next: Next<W> | undefined = { kind: 'more', work: taken.work }
      while (next?.kind === 'more') {
        // shutdown: hand the phone back rather than start more work
        if (stopping.aborted) return await this.handBack(phone)
        if (lost) break
        next = await this.opts.step(next.work, stopping)
      }
      // not drained: the lease was lost (it ran out under load, and nobody may have taken the phone since) or
      // given back with a backoff (whose timer is set already): look again
      if (next?.kind !== 'done') this.later(phone, 0)
    } catch (err) {
      // the store failed mid-work: the head is still there, the lease runs out
      log.warn({ err, lane, phone: maskPhone(phone) }, 'chat lane lost the store mid-work')
      this.unreachable.set(phone, (this.unreachable.get(phone) ?? 0) + 1)
      this.later(phone, leaseMs)
    } finally {
      // one call clears either: Node's timeouts and intervals are one kind of timer
      clearTimeout(renewal)
    }
  }

  /**
   * Works a phone whose lease was taken for this runner elsewhere (a commit that filled its outbox), without
   * taking it again; one this runner is still on, or a stopped runner, gives the lease back at once.
   */
  adopt (phone: string, work: W): void {
    if (!this.running || this.active.has(phone)) {
      this.opts.store.release(this.opts.lane, phone, this.opts.owner, 0, false).catch(() => {}).finally(() => { this.offer([phone]) })
      return
    }
    this.queue.delete(phone)
    this.run(phone, { kind: 'ok', work })
  }

  private pump (): void {
    while (this.running && this.active.size < this.opts.concurrency) {
      const phone = this.next()
      if (phone === undefined) return
      this.queue.delete(phone)
      this.run(phone)
    }
  }

  /** The first phone queued, passing over those that could not reach the store while one of them is in hand. */
  private next (): string | undefined {
    const probing = this.unreachable.size > 0 && [...this.active].some((phone) => this.unreachable.has(phone))
    for (const phone of this.queue) if (!probing || !this.unreachable.has(phone)) return phone
    return undefined
  }

  private run (phone: string, taken?: Taken<W>): void {
    this.active.add(phone)
    const job: Promise<void> = this.drain(phone, this.stopping.signal, taken)
      .catch((err: unknown) => { this.opts.log.error({ err, lane: this.opts.lane }, 'chat lane work failed') })
      .finally(() => {
        this.active.delete(phone)
        this.inFlight.delete(job)
        if (this.again.delete(phone)) this.queue.add(phone)
        this.pump()
      })
    this.inFlight.add(job)
  }
}
