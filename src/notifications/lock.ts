import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'

/** Runs a job at most once at a time; across instances when there is a Redis. */
export interface JobLock {
  /** Answers `{ ran: false }` without running when another run holds the lock. */
  run<T> (job: () => Promise<T>): Promise<{ ran: true, result: T } | { ran: false }>
}

// Deletes the lock only when it is still ours: an expired lock may meanwhile belong to another run.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`

export class RedisJobLock implements JobLock {
  constructor (private readonly redis: Redis, private readonly key: string, private readonly ttlMs: number) {}

  async run<T> (job: () => Promise<T>) {
    const token = randomUUID()
    const got = await this.redis.set(this.key, token, 'PX', this.ttlMs, 'NX')
    if (got !== 'OK') return { ran: false as const }
    try {
      return { ran: true as const, result: await job() }
    } finally {
      await this.redis.eval(RELEASE, 1, this.key, token)
    }
  }
}

export class MemoryJobLock implements JobLock {
  private held = false

  async run<T> (job: () => Promise<T>) {
    if (this.held) return { ran: false as const }
    this.held = true
    try {
      return { ran: true as const, result: await job() }
    } finally {
      this.held = false
    }
  }
}

export function createJobLock (redis: Redis | null, key: string, ttlMs: number): JobLock {
  return redis ? new RedisJobLock(redis, key, ttlMs) : new MemoryJobLock()
}
