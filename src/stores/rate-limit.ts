import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import { defineScript } from './define-script.ts'
import type { RedisClient } from './redis-client.ts'

// The request counters of @fastify/rate-limit on the service's Redis, shared by every instance. Its port is the
// plugin's store interface and its memory twin the plugin's own LocalStore (no Redis: the plugin's default). The
// plugin's RedisStore would define its script as an ioredis custom command, which every auto-pipeline batch of the
// shared client copies onto itself; this is the same script through defineScript. One key per call (the namespace,
// the route's part, the caller's address): cluster-ready whatever the key.

interface Counted { current: number, ttl: number }

// The plugin's script: count the request, start the window with the first one (again with each one past the
// limit when continueExceeding, doubled with each one past it when exponentialBackoff), answer the count and
// the window's remaining ms.
const count = defineScript<[windowMs: number, max: number, continueExceeding: string, exponentialBackoff: string], Counted>({
  name: 'rateLimitCount',
  keys: 1,
  lua: `
local window = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local continueExceeding = ARGV[3] == 'true'
local exponentialBackoff = ARGV[4] == 'true'
local current = redis.call('INCR', KEYS[1])
if current == 1 or (continueExceeding and current > max) then
  redis.call('PEXPIRE', KEYS[1], window)
elseif exponentialBackoff and current > max then
  window = math.min(window * (2 ^ (current - max - 1)), (2 ^ 53) - 1)
  redis.call('PEXPIRE', KEYS[1], window)
else
  window = redis.call('PTTL', KEYS[1])
end
return { current, window }`,
  decode: (raw) => {
    const [current, ttl] = raw as [number, number]
    return { current, ttl }
  },
})

/** The options the plugin hands its store (its global ones, or a route's merged with them). */
interface StoreOptions { continueExceeding?: boolean, exponentialBackoff?: boolean }

// What the plugin calls on its store: its typings leave out the window and the limit it passes to incr.
interface Store {
  incr: (key: string, callback: (error: Error | null, result?: Counted) => void, timeWindow: number, max: number) => void
  child: (routeOptions: StoreOptions & { routeInfo: { method?: string, url?: string } }) => Store
}

class RedisRateLimitStore implements Store {
  constructor (private readonly redis: RedisClient, private readonly prefix: string, private readonly options: StoreOptions) {}

  incr: Store['incr'] = (key, callback, timeWindow, max) => {
    const { continueExceeding = false, exponentialBackoff = false } = this.options
    count(this.redis, [this.prefix + key], timeWindow, max, String(continueExceeding), String(exponentialBackoff))
      .then((counted) => { callback(null, counted) }, (err: Error) => { callback(err) })
  }

  /** A route with limits of its own counts apart, under its method and path (as the plugin's store does). */
  child: Store['child'] = (routeOptions) =>
    new RedisRateLimitStore(this.redis, `${this.prefix}${routeOptions.routeInfo.method}${routeOptions.routeInfo.url}-`, routeOptions)
}

/** The plugin's `store` option: counters under `prefix` on `redis`; none without Redis (the plugin keeps them in memory). */
export function createRateLimitStore (redis: RedisClient | null, prefix: string): FastifyRateLimitStoreCtor | undefined {
  if (!redis) return undefined
  const client = redis
  const Ctor = class extends RedisRateLimitStore {
    constructor (options: StoreOptions) { super(client, prefix, options) }
  }
  return Ctor as unknown as FastifyRateLimitStoreCtor
}
