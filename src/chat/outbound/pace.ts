import type { RedisClient } from '../../plugins/redis.ts'
import { defineScript } from '../../stores/define-script.ts'
import { keys } from '../../stores/keys.ts'

// The provider's pace: it takes so many messages a second per business number (80 by default, up to 1,000 once
// raised) and answers more with a throttling error. Every instance's sends from one number follow one schedule
// (GCRA, the generic cell rate algorithm: one value per number, the moment its next message may go, `next`),
// kept in Redis, or in the process without Redis. A send reserves the next free moment and waits for it when it
// is near (at most `maxWaitMs`); a farther one is not reserved and the phone asks again later, so a burst queues
// in the outboxes instead of drawing 429s. A throttling answer holds the number: nothing goes before the hold
// ends. Both implementations run the same arithmetic on the same doubles (`pace.test.ts` holds them together).

export interface PaceRule {
  /** Messages a second per business number. */
  rate: number
  /** A moment farther than this is not reserved: the phone is given back and asks again. */
  maxWaitMs: number
}

export type Slot =
  /** Reserved: send in `inMs` (0: now). */
  | { kind: 'reserved', inMs: number }
  /** Nothing free near enough: ask again in `inMs` (at least 1). */
  | { kind: 'later', inMs: number }

export interface Pace {
  take (number: string): Promise<Slot>
  /** The provider throttled the number: no slot before `ms` from now. */
  hold (number: string, ms: number): Promise<void>
}

/** The next free moment after a take at `now` (epoch ms), and what the take gets; `next` undefined when idle. */
export function takeSlot (next: number | undefined, now: number, rule: PaceRule): { next: number | undefined, slot: Slot } {
  const at = Math.max(next ?? now, now)
  const wait = at - now
  if (wait > rule.maxWaitMs) return { next, slot: { kind: 'later', inMs: Math.ceil(wait - rule.maxWaitMs) } }
  return { next: at + 1000 / rule.rate, slot: { kind: 'reserved', inMs: Math.ceil(wait) } }
}

export const holdSlots = (next: number | undefined, now: number, ms: number): number => Math.max(next ?? now, now + ms)

export class MemoryPace implements Pace {
  private readonly next = new Map<string, number>()

  constructor (private readonly rule: PaceRule, private readonly now: () => number = Date.now) {}

  async take (number: string) {
    const now = this.now()
    const { next, slot } = takeSlot(this.next.get(number), now, this.rule)
    this.remember(number, next, now)
    return slot
  }

  async hold (number: string, ms: number) {
    const now = this.now()
    this.remember(number, holdSlots(this.next.get(number), now, ms), now)
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

const take = defineScript<[now: number | '', rate: number, maxWaitMs: number], Slot>({
  name: 'chatPaceTake',
  keys: 1,
  lua: `${START}
local wait = at - now
local maxWait = tonumber(ARGV[3])
if wait > maxWait then return {0, math.ceil(wait - maxWait)} end
keep(at + 1000 / tonumber(ARGV[2]))
return {1, math.ceil(wait)}`,
  decode: (raw) => {
    const [reserved, inMs] = raw as [number, number]
    return { kind: reserved === 1 ? 'reserved' : 'later', inMs }
  },
})

const hold = defineScript<[now: number | '', ms: number], unknown>({
  name: 'chatPaceHold',
  keys: 1,
  lua: `${START}
keep(math.max(at, now + tonumber(ARGV[2])))
return 1`,
})

export class RedisPace implements Pace {
  /** `now` only for tests: without it the schedule runs on Redis' clock. */
  constructor (private readonly redis: RedisClient, private readonly rule: PaceRule, private readonly now?: () => number) {}

  async take (number: string) { return await take(this.redis, [keys.chat.pace(number)], this.now?.() ?? '', this.rule.rate, this.rule.maxWaitMs) }
  async hold (number: string, ms: number) { await hold(this.redis, [keys.chat.pace(number)], this.now?.() ?? '', Math.max(0, ms)) }
}

export function createPace (redis: RedisClient | null, rule: PaceRule): Pace {
  return redis ? new RedisPace(redis, rule) : new MemoryPace(rule)
}
