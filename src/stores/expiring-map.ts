/** Milliseconds since the epoch; injectable so tests can move time. */
export type Clock = () => number

export interface ExpiringEntry<V> {
  value: V
  expiresAt: number
}

const SWEEP_EVERY = 256

/**
 * A map whose entries vanish at their deadline, as Redis keys with PX or PXAT do: the one way the in-memory
 * stores expire things, so each behaves like its Redis twin without a timer.
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, ExpiringEntry<V>>()
  private writes = 0

  constructor (private readonly now: Clock = Date.now) {}

  entry (key: string): ExpiringEntry<V> | undefined {
    const found = this.entries.get(key)
    if (found && found.expiresAt <= this.now()) {
      this.entries.delete(key)
      return undefined
    }
    return found
  }

  get (key: string): V | undefined {
    return this.entry(key)?.value
  }

  /** SET PX: the entry lives `ttlMs` from now. */
  set (key: string, value: V, ttlMs: number): void {
    this.setUntil(key, value, this.now() + ttlMs)
  }

  /** SET PXAT, or a write that keeps an existing deadline as INCR keeps a key's TTL; a past deadline deletes. */
  setUntil (key: string, value: V, expiresAt: number): void {
    if (expiresAt <= this.now()) {
      this.entries.delete(key)
      return
    }
    this.entries.set(key, { value, expiresAt })
    if (++this.writes % SWEEP_EVERY === 0) this.sweep()
  }

  /** Read and delete in one step (GETDEL). */
  take (key: string): V | undefined {
    const value = this.get(key)
    this.entries.delete(key)
    return value
  }

  delete (key: string): void {
    this.entries.delete(key)
  }

  // Entries never read again would otherwise stay forever.
  private sweep (): void {
    const now = this.now()
    for (const [key, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(key)
  }
}
