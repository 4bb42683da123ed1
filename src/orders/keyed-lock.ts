// Runs tasks one at a time per key, in this process: the order metadata is read, changed and written back
// whole (the backend has no compare-and-set on it), so two writers of one order must not interleave.
export class KeyedLock {
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
}
