import { setTimeout as sleep } from 'node:timers/promises'
import type { RedisClient } from '../../stores/redis-client.ts'
import { defineScript } from '../../stores/define-script.ts'
import { keys } from '../../stores/keys.ts'

// The provider's pace: it takes so many messages a second per business number (80 by default, up to 1,000 once
// raised) and answers more with a throttling error. Every instance's sends from one number follow one schedule
// (GCRA, the generic cell rate algorithm: one value per number, `next`, the moment its next message is due),
// kept in Redis, or in the process without Redis. A send goes when `next` is at most one interval away (the
// tolerance absorbs the milliseconds a waiter wakes late, so a steady stream keeps the full rate), and pushes
// `next` one interval on from the later of `next` and now: a sender that wakes later than that does not make up
// for it with a burst. So no second holds more than `rate` + 1 sends, and a burst queues instead of drawing 429s.
// One ask may take several sends' turns, each one interval after the one before, the first within a horizon
// of now: the asker's waiters then sleep to their own turn instead of asking one after another (one round trip
// per send bounded the rate by the round trip's time). A turn taken and not used (shutdown) is lost, never
// given to two. A throttling answer holds the number: nothing goes before the hold ends (a turn taken before
// the hold is held by the sender of this instance; another instance's is at most the horizon away). Both
// implementations run the same arithmetic on the same doubles (test/chat/pace.test.ts holds them together).

export type Slots =
  /** `count` sends (at least 1) may go: the first in `inMs` (now when not above 0), each next `intervalMs` later. */
  | { kind: 'go', count: number, inMs: number, intervalMs: number }
  /** Not yet: ask again in `inMs` (at least 1). */
  | { kind: 'wait', inMs: number }

export interface Pace {
  /** Up to `want` turns whose first is at most `horizonMs` from now. */
  take (number: string, want: number, horizonMs: number): Promise<Slots>
  /** The provider throttled the number: nothing goes before `ms` from now. */
  hold (number: string, ms: number): Promise<void>
}

/** What a take at `now` (epoch ms) gets, and the number's next due moment after it (undefined when idle). */
function takeSlots (next: number | undefined, now: number, rate: number, want: number, horizonMs: number): { next: number | undefined, slots: Slots } {
  const interval = 1000 / rate
  const at = Math.max(next ?? now, now)
  const first = at - interval - now
  if (first > horizonMs) return { next, slots: { kind: 'wait', inMs: Math.ceil(first) } }
  const count = Math.min(want, Math.floor((horizonMs - first) / interval) + 1)
  return { next: at + count * interval, slots: { kind: 'go', count, inMs: first, intervalMs: interval } }
}

/** The tolerance is added so that the first send after the hold is not early by it. */
const holdSlots = (next: number | undefined, now: number, ms: number, rate: number): number => Math.max(next ?? now, now + ms + 1000 / rate)

export class MemoryPace implements Pace {
  private readonly next = new Map<string, number>()

  constructor (private readonly rate: number, private readonly now: () => number = Date.now) {}

  async take (number: string, want: number, horizonMs: number) {
    const now = this.now()
    const { next, slots } = takeSlots(this.next.get(number), now, this.rate, want, horizonMs)
    this.remember(number, next, now)
    return slots
  }

  async hold (number: string, ms: number) {
    const now = this.now()
    this.remember(number, holdSlots(this.next.get(number), now, Math.max(0, ms), this.rate), now)
  }

  /** A schedule in the past says nothing more than none: dropped, so idle numbers cost nothing. */
  private remember (number: string, next: number | undefined, now: number): void {
    if (next === undefined || next <= now) this.next.delete(number)
    else this.next.set(number, next)
  }
}

// ARGV[1] the caller's clock (tests) or '' for Redis' own, which every instance shares whatever its clock says.
// The schedule is kept with 17 significant digits, so it reads back as the same double. It expires a while after
// it is past (a past schedule reads as none): the margin keeps a test's fake clock apart from Redis' real expiry.
const START = `
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
else
  now = tonumber(ARGV[1])
end
local stored = redis.call('GET', KEYS[1])
local at = now
if stored then at = math.max(tonumber(stored), now) end
local function keep (next) redis.call('SET', KEYS[1], string.format('%.17g', next), 'PX', math.max(0, math.ceil(next - now)) + 60000) end
`

// ARGV[2] the rate, ARGV[3] how many turns are wanted, ARGV[4] the horizon (ms). The answer: {0, wait} or
// {count, first, interval}, the doubles as strings (a Lua number would come back cut to an integer).
const take = defineScript<[now: number | '', rate: number, want: number, horizonMs: number], Slots>({
  name: 'chatPaceTake',
  keys: 1,
  lua: `${START}
local interval = 1000 / tonumber(ARGV[2])
local first = at - interval - now
local horizon = tonumber(ARGV[4])
if first > horizon then return {0, tostring(math.ceil(first))} end
local count = math.min(tonumber(ARGV[3]), math.floor((horizon - first) / interval) + 1)
keep(at + count * interval)
return {count, string.format('%.17g', first), string.format('%.17g', interval)}`,
  decode: (raw) => {
    const [count, first, interval] = raw as [number, string, string?]
    return count === 0 ? { kind: 'wait', inMs: Number(first) } : { kind: 'go', count, inMs: Number(first), intervalMs: Number(interval) }
  },
})

const hold = defineScript<[now: number | '', ms: number, rate: number], unknown>({
  name: 'chatPaceHold',
  keys: 1,
  lua: `${START}
keep(math.max(at, now + tonumber(ARGV[2]) + 1000 / tonumber(ARGV[3])))
return 1`,
})

export class RedisPace implements Pace {
  /** `now` only for tests: without it the schedule runs on Redis' clock. */
  constructor (private readonly redis: RedisClient, private readonly rate: number, private readonly now?: () => number) {}

  async take (number: string, want: number, horizonMs: number) {
    return await take(this.redis, [keys.chat.pace(number)], this.now?.() ?? '', this.rate, Math.max(1, Math.floor(want)), Math.max(0, horizonMs))
  }

  async hold (number: string, ms: number) { await hold(this.redis, [keys.chat.pace(number)], this.now?.() ?? '', Math.max(0, ms), this.rate) }
}

export function createPace (redis: RedisClient | null, rate: number): Pace {
  return redis ? new RedisPace(redis, rate) : new MemoryPace(rate)
}

export type Turn = { kind: 'go' } | { kind: 'later', inMs: number }

/**
 * A send waiting for its turn, or a turn asked for ahead of its send (`ahead`, see reserve): its ask then keeps the
 * turn for the first send to come, which takes this waiter's place while the ask is out.
 */
interface Waiter { signal: AbortSignal, resolve: (turn: Turn) => void, reject: (err: unknown) => void, ahead?: true }

/** An ahead-of-time waiter has no send to tell yet, and no shutdown to listen for. */
const NEVER = new AbortController().signal
const nobody = (): void => {}

/**
 * One instance's sends from a number ask the pace together: while some wait, one ask at a time goes for all of
 * them (at most `batch`), and each waiter taken sleeps to its own turn, in the order they came. Told to wait at
 * most `maxWaitMs`, the asker sleeps and asks again; longer (a hold), every waiter gives its phone back instead.
 * A waiter woken more than the horizon after its turn (a stalled event loop) asks again rather than go: the
 * turns it and those after it took would otherwise all go at once.
 *
 * A turn may be asked for ahead of its send (reserve), in the same loop turn as the Redis script that queues the
 * replies (the turn's commit): the ask then shares the commit's write and answer instead of a round trip of its
 * own once the commit answered. The turn is kept for the next send of this instance, which goes at it (as a
 * waiter woken then), and is lost, never given to two, when no send comes within the horizon after it.
 */
export class PaceGate {
  private readonly queues = new Map<string, Waiter[]>()
  /** Turns taken ahead and not yet claimed, by number: when each is due (performance clock), oldest first. */
  private readonly kept = new Map<string, number[]>()

  constructor (private readonly pace: Pace, private readonly maxWaitMs: number, private readonly horizonMs: number, private readonly batch = 64) {}

  /** Rejects when `signal` aborts (shutdown): the caller hands its phone back. */
  async turn (number: string, signal: AbortSignal): Promise<Turn> {
    signal.throwIfAborted()
    return await new Promise<Turn>((resolve, reject) => {
      const waiter: Waiter = { signal, resolve, reject }
      const due = this.claim(number)
      if (due !== undefined) this.wake(number, waiter, due - performance.now())
      else if (!this.stand(number, waiter)) this.enqueue(number, waiter, false)
    })
  }

  /**
   * Asks now for the turns of `count` sends that come shortly (a commit is queuing replies for this instance's
   * sender), as many as leave at most one ask's worth (`batch`) asked for ahead or kept. Sends of the number take
   * them (turn): a commit's second reply, sent once the first is recorded, finds its turn kept rather than asking.
   */
  reserve (number: string, count = 1): void {
    let ahead = this.fresh(number)?.length ?? 0
    for (const w of this.queues.get(number) ?? []) if (w.ahead) ahead++
    for (; count > 0 && ahead < this.batch; count--, ahead++) this.enqueue(number, { signal: NEVER, resolve: nobody, reject: nobody, ahead: true }, false)
  }

  /** The oldest turn kept for the number, taken off the list. */
  private claim (number: string): number | undefined {
    const kept = this.fresh(number)
    const due = kept?.shift()
    if (kept?.length === 0) this.kept.delete(number)
    return due
  }

  /** The turns kept for the number, less those whose time passed more than the horizon ago (lost). */
  private fresh (number: string): number[] | undefined {
    const kept = this.kept.get(number)
    if (!kept) return undefined
    const now = performance.now()
    let lost = 0
    while (lost < kept.length && now - (kept[lost] as number) > this.horizonMs) lost++
    if (lost > 0) kept.splice(0, lost)
    if (kept.length > 0) return kept
    this.kept.delete(number)
    return undefined
  }

  /** Takes the place of a turn asked for ahead whose ask is still out: the send goes at the turn it gets. */
  private stand (number: string, waiter: Waiter): boolean {
    const ahead = this.queues.get(number)?.find((w) => w.ahead)
    if (!ahead) return false
    ahead.signal = waiter.signal
    ahead.resolve = waiter.resolve
    ahead.reject = waiter.reject
    delete ahead.ahead
    return true
  }

  /** Queues a waiter (first when it lost its turn), and starts asking for the number's queue if none does. */
  private enqueue (number: string, waiter: Waiter, first: boolean): void {
    const queue = this.queues.get(number)
    if (queue) {
      if (first) queue.unshift(waiter)
      else queue.push(waiter)
      return
    }
    const mine = [waiter]
    this.queues.set(number, mine)
    this.serve(number, mine).catch((err: unknown) => {
      this.queues.delete(number)
      for (const w of mine.splice(0)) w.reject(err)
    })
  }

  /** Asks for the waiters of `queue` until none is left; a failing ask (Redis) fails those still waiting. */
  private async serve (number: string, queue: Waiter[]): Promise<void> {
    // the waiters that came in the same tick (a commit's replies, lanes freed together) go in the first ask
    await Promise.resolve()
    for (;;) {
      for (const w of queue.filter((w) => w.signal.aborted)) {
        queue.splice(queue.indexOf(w), 1)
        w.reject(w.signal.reason)
      }
      const head = queue[0]
      if (!head) {
        // in the same tick as the last check: a waiter coming after this starts a queue of its own
        this.queues.delete(number)
        return
      }
      const slots = await this.pace.take(number, Math.min(queue.length, this.batch), this.horizonMs)
      if (slots.kind === 'go') {
        const now = performance.now()
        queue.splice(0, slots.count).forEach((w, i) => {
          const inMs = slots.inMs + i * slots.intervalMs
          if (w.ahead) this.keep(number, now + inMs)
          else this.wake(number, w, inMs)
        })
      } else if (slots.inMs > this.maxWaitMs) {
        for (const w of queue.splice(0)) w.resolve({ kind: 'later', inMs: slots.inMs })
      } else {
        // a turn asked for ahead is not waited for: the send it was for asks when it comes (the schedule is busy)
        for (const w of queue.filter((w) => w.ahead)) queue.splice(queue.indexOf(w), 1)
        // only the head listens for shutdown here: those behind it are checked before the next ask
        if (queue[0]) await sleep(slots.inMs, undefined, { signal: queue[0].signal }).catch(() => {})
      }
    }
  }

  private keep (number: string, due: number): void {
    const kept = this.kept.get(number)
    if (kept) kept.push(due)
    else this.kept.set(number, [due])
  }

  /**
   * Lets a waiter go at its turn, `inMs` from now (at once when not above 0). Shutdown meanwhile is seen when the
   * turn comes (at most the horizon away), so that the many waiters sleeping add no listener each to one signal.
   */
  private wake (number: string, waiter: Waiter, inMs: number): void {
    if (inMs <= 0) {
      waiter.resolve({ kind: 'go' })
      return
    }
    const due = performance.now() + inMs
    setTimeout(() => {
      if (waiter.signal.aborted) waiter.reject(waiter.signal.reason)
      else if (performance.now() - due > this.horizonMs) this.enqueue(number, waiter, true)
      else waiter.resolve({ kind: 'go' })
    }, Math.ceil(inMs))
  }
}
