/** A minimal Server-Sent Events reader over fetch, for tests: waits for events matching a predicate. */
export interface SseEvent { event: string, data: unknown, /** When it arrived (epoch ms). */ at?: number }

export interface SseClient {
  status: number
  headers: Headers
  events: SseEvent[]
  /** Resolves with the first event (already received or coming) that matches; rejects after `ms`. */
  waitFor: (match: (e: SseEvent) => boolean, ms?: number) => Promise<SseEvent>
  /** Raw text received so far (comments such as heartbeats included). */
  text: () => string
  /** Resolves with the time (epoch ms) the stream ended: the server closed it, or close() was called. */
  ended: Promise<number>
  close: () => void
}

export async function openSse (url: string, headers: Record<string, string>): Promise<SseClient> {
  const abort = new AbortController()
  const res = await fetch(url, { headers, signal: abort.signal })
  const events: SseEvent[] = []
  const waiters: Array<() => void> = []
  let raw = ''
  let buffer = ''
  const pump = async (): Promise<void> => {
    if (!res.body) return
    const decoder = new TextDecoder()
    try {
      for await (const chunk of res.body) {
        const text = decoder.decode(chunk as Uint8Array, { stream: true })
        raw += text
        buffer += text
        let cut
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          const lines = block.split('\n')
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7)
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6)
          if (event && data) events.push({ event, data: JSON.parse(data), at: Date.now() })
        }
        for (const w of waiters.splice(0)) w()
      }
    } catch {
      // aborted by close()
    }
  }
  const ended = pump().catch(() => {}).then(() => Date.now())
  const waitFor: SseClient['waitFor'] = (match, ms = 3000) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching event in ${ms} ms; got ${JSON.stringify(events)}`)), ms)
    const check = (): void => {
      const found = events.find(match)
      if (found) {
        clearTimeout(timer)
        resolve(found)
      } else {
        waiters.push(check)
      }
    }
    check()
  })
  return { status: res.status, headers: res.headers, events, waitFor, text: () => raw, ended, close: () => abort.abort() }
}

/** Polls until `check` is true or `ms` pass. */
export async function eventually (check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
