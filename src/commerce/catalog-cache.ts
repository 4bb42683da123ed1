// Each club's catalog as last read from its commerce backend, kept in this process for at most `ttlMs`
// (CATALOG_CACHE_MS): a browsing turn reads it from memory, and the backend is asked again only once the copy is
// older than that. Instances do not share it: each keeps its own copy, each at most `ttlMs` old, so what a member
// sees is never older than the bound, whichever instance answers. Stock shown from it may be that old; the
// backend checks stock again when a line is added and when the order is placed.

interface Entry<T> {
  /** The club's settings the copy was read with: a club moved to another channel or backend reads afresh. */
  source: string
  loadedAt: number
  value: Promise<T>
}

export class CatalogCache<T> {
  private readonly entries = new Map<string, Entry<T>>()

  constructor (private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  /**
   * The club's copy while it is fresh, else `load()`'s answer, which becomes the copy. Callers that miss at the
   * same time share one load; a load that fails is not kept. The age counts from when the load started.
   */
  async get (club: string, source: string, load: () => Promise<T>): Promise<T> {
    const at = this.now()
    const entry = this.entries.get(club)
    if (entry && entry.source === source && at - entry.loadedAt < this.ttlMs) return await entry.value
    const value = load()
    if (this.ttlMs <= 0) return await value
    const fresh = { source, loadedAt: at, value }
    this.entries.set(club, fresh)
    value.catch(() => { if (this.entries.get(club) === fresh) this.entries.delete(club) })
    return await value
  }

  /** Forgets the club's copy: the next caller reads afresh. */
  drop (club: string): void {
    this.entries.delete(club)
  }
}
