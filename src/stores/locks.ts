import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { RedisClient } from './redis-client.ts'
import { AppError } from '../errors.ts'
import { defineScript } from './define-script.ts'

// Named locks with an expiry, across instances when there is a Redis (SET NX PX, released only by its holder),
// in this process otherwise. Within one process, waiters queue in order before touching Redis at all.

export interface LockOptions {
  /** How long the lock holds if its holder dies mid-job. */
  ttlMs: number
  /** How long to wait for a busy lock before giving up with 409 CONFLICT; 0 does not wait. */
  waitMs?: number
}

/**
 * A lock taken and given back together with more of the caller's (a script of its own on keys in the lock's slot:
 * one round trip for both). `take` answers what came with the lock, or undefined while another holder has it;
 * `give` lets it go only while `token` still holds it. Without Redis, `take` is never refused: the process's own
 * queue is the lock.
 */
export interface LockHold<A> {
  take: (token: string, ttlMs: number) => Promise<A | undefined>
  give: (token: string) => Promise<void>
}

export interface Locks {
  /** Runs `job` holding `key`, waiting up to `waitMs` for it. */
  withLock<T> (key: string, options: LockOptions, job: () => Promise<T>): Promise<T>
  /** Runs `job` only if `key` is free right now. */
  tryLock<T> (key: string, ttlMs: number, job: () => Promise<T>): Promise<{ ran: true, result: T } | { ran: false }>
  /** withLock, the lock taken and given back by `hold`; `job` gets what came with it. */
  withHold<A, T> (key: string, options: LockOptions, hold: LockHold<A>, job: (taken: A) => Promise<T>): Promise<T>
  /** tryLock, the lock taken and given back by `hold`. */
  tryHold<A, T> (key: string, ttlMs: number, hold: LockHold<A>, job: (taken: A) => Promise<T>): Promise<{ ran: true, result: T } | { ran: false }>
}

const busy = (key: string): AppError => new AppError('CONFLICT', 'Another request is changing this resource; retry shortly', { details: { lock: key } })

/** Runs tasks one at a time per key, in this process. */
class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>()

  async run<T> (key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve()
    const next = previous.then(task, task)
    const tail = next.catch(() => undefined)
    this.tails.set(key, tail)
    try {
      return await next
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }

  held (key: string): boolean {
    return this.tails.has(key)
  }
}

export class MemoryLocks implements Locks {
  private readonly queue = new KeyedQueue()

  async withLock<T> (key: string, _options: LockOptions, job: () => Promise<T>): Promise<T> {
    return await this.queue.run(key, job)
  }

  async tryLock<T> (key: string, _ttlMs: number, job: () => Promise<T>) {
    if (this.queue.held(key)) return { ran: false as const }
    return { ran: true as const, result: await this.queue.run(key, job) }
  }

  async withHold<A, T> (key: string, options: LockOptions, hold: LockHold<A>, job: (taken: A) => Promise<T>): Promise<T> {
    return await this.withLock(key, options, async () => await held(key, hold, options.ttlMs, job))
  }

  async tryHold<A, T> (key: string, ttlMs: number, hold: LockHold<A>, job: (taken: A) => Promise<T>) {
    return await this.tryLock(key, ttlMs, async () => await held(key, hold, ttlMs, job))
  }
}

/** `job` between `hold`'s take and give, in this process's queue (which alone is the lock: a refusal is a bug). */
async function held<A, T> (key: string, hold: LockHold<A>, ttlMs: number, job: (taken: A) => Promise<T>): Promise<T> {
  const token = randomUUID()
  const taken = await hold.take(token, ttlMs)
  if (taken === undefined) throw busy(key)
  try {
    return await job(taken)
  } finally {
    await hold.give(token)
  }
}

// Deletes the lock only while it is still ours (it may have expired and been taken by another holder).
const release = defineScript<[token: string], unknown>({
  name: 'lockRelease',
  keys: 1,
  lua: `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
})

export class RedisLocks implements Locks {
  private readonly queue = new KeyedQueue()

  constructor (private readonly redis: RedisClient) {}

  async withLock<T> (key: string, options: LockOptions, job: () => Promise<T>): Promise<T> {
    return await this.withHold(key, options, this.plain(key), job)
  }

  async tryLock<T> (key: string, ttlMs: number, job: () => Promise<T>) {
    return await this.tryHold(key, ttlMs, this.plain(key), job)
  }

  async withHold<A, T> (key: string, options: LockOptions, hold: LockHold<A>, job: (taken: A) => Promise<T>): Promise<T> {
    return await this.queue.run(key, async () => {
      const token = randomUUID()
      const deadline = Date.now() + (options.waitMs ?? 0)
      let taken: A | undefined
      for (let delay = 10; (taken = await hold.take(token, options.ttlMs)) === undefined; delay = Math.min(delay * 2, 200)) {
        if (Date.now() + delay > deadline) throw busy(key)
        await sleep(delay)
      }
      try {
        return await job(taken)
      } finally {
        await hold.give(token)
      }
    })
  }

  async tryHold<A, T> (key: string, ttlMs: number, hold: LockHold<A>, job: (taken: A) => Promise<T>) {
    if (this.queue.held(key)) return { ran: false as const }
    const token = randomUUID()
    const taken = await hold.take(token, ttlMs)
    if (taken === undefined) return { ran: false as const }
    try {
      return { ran: true as const, result: await this.queue.run(key, async () => await job(taken)) }
    } finally {
      await hold.give(token)
    }
  }

  /** The lock alone: SET NX PX, and the release script. */
  private plain (key: string): LockHold<true> {
    return {
      take: async (token, ttlMs) => await this.redis.set(key, token, 'PX', ttlMs, 'NX') === 'OK' || undefined,
      give: async (token) => { await release(this.redis, [key], token) },
    }
  }
}

export function createLocks (redis: RedisClient | null): Locks {
  return redis ? new RedisLocks(redis) : new MemoryLocks()
}
