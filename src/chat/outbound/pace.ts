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
// Asking does not reserve anything: who asks once the moment has come gets it. A throttling answer holds the
// number: nothing goes before the hold ends. Both implementations run the same arithmetic on the same doubles
// (test/chat/pace.test.ts holds them together).

export type Slot =
  /** Taken: send now. */
  | { kind: 'now' }
  /** Not yet: ask again in `inMs` (at least 1). */
  | { kind: 'wait', inMs: number }

export interface Pace {
  take (number: string): Promise<Slot>
  /** The provider throttled the number: nothing goes before `ms` from now. */
  hold (number: string, ms: number): Promise<void>
}

/** What a take at `now` (epoch ms) gets, and the number's next due moment after it (undefined when idle). */
function takeSlot (next: number | undefined, now: number, rate: number): { next: number | undefined, slot: Slot } {
  const at = Math.max(next ?? now, now)
  const wait = at - 1000 / rate - now
  if (wait > 0) return { next, slot: { kind: 'wait', inMs: Math.ceil(wait) } }
  return { next: at + 1000 / rate, slot: { kind: 'now' } }
}

/** The tolerance is added so that the first send after the hold is not early by it. */
const holdSlots = (next: number | undefined, now: number, ms: number, rate: number): number => Math.max(next ?? now, now + ms + 1000 / rate)

export class MemoryPace implements Pace {
  private readonly next = new Map<string, number>()

  constructor (private readonly rate: number, private readonly now: () => number = Date.now) {}

  async take (number: string) {
    const now = this.now()
    const { next, slot } = takeSlot(this.next.get(number), now, this.rate)
    this.remember(number, next, now)
    return slot
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

const take = defineScript<[now: number | '', rate: number], Slot>({
  name: 'chatPaceTake',
  keys: 1,
  lua: `${START}
local rate = tonumber(ARGV[2])
local wait = at - 1000 / rate - now
if wait > 0 then return math.ceil(wait) end
keep(at + 1000 / rate)
return 0`,
  decode: (raw) => raw === 0 ? { kind: 'now' } : { kind: 'wait', inMs: raw as number },
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

  async take (number: string) { return await take(this.redis, [keys.chat.pace(number)], this.now?.() ?? '', this.rate) }
  async hold (number: string, ms: number) { await hold(this.redis, [keys.chat.pace(number)], this.now?.() ?? '', Math.max(0, ms), this.rate) }
}

export function createPace (redis: RedisClient | null, rate: number): Pace {
  return redis ? new RedisPace(redis, rate) : new MemoryPace(rate)
}

export type Turn = { kind: 'go' } | { kind: 'later', inMs: number }

/**
 * One instance's sends from a number ask the pace one at a time, in the order they came (so that waiters do
 * not all wake and ask together): the first asks, sleeps as long as it is told, asks again, and goes. Told to
 * wait longer than `maxWaitMs` (a hold), it gives its phone back instead, and so does each after it.
 */
export class PaceGate {
  private readonly tails = new Map<string, Promise<void>>()

  constructor (private readonly pace: Pace, private readonly maxWaitMs: number) {}

  /** Rejects when `signal` aborts (shutdown): the caller hands its phone back. */
  async turn (number: string, signal: AbortSignal): Promise<Turn> {
    const previous = this.tails.get(number)
    let done = (): void => {}
    const mine = new Promise<void>((resolve) => { done = resolve })
    this.tails.set(number, mine)
    try {
      // only the first waiter listens for shutdown (its sleep): those behind it follow as it gives up
      if (previous) await previous
      signal.throwIfAborted()
      for (;;) {
        const slot = await this.pace.take(number)
        if (slot.kind === 'now') return { kind: 'go' }
        if (slot.inMs > this.maxWaitMs) return { kind: 'later', inMs: slot.inMs }
        await sleep(slot.inMs, undefined, { signal })
      }
    } finally {
      done()
      if (this.tails.get(number) === mine) this.tails.delete(number)
    }
  }
}
