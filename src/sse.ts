import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** Often enough that proxies with a 30 or 60 second idle timeout keep the connection. */
export const HEARTBEAT_MS = 25_000

export interface SseSession {
  send (event: string, data: unknown): void
  /** Run when the stream ends (client gone, or the server closing); at once if it has ended already. */
  onEnd (cleanup: () => Promise<void>): void
  readonly closed: boolean
}

/**
 * Server-Sent Events over a hijacked reply, one way for every stream of the service: the headers, a `retry`
 * hint, a heartbeat comment once the stream has started, and the end of each stream when its client leaves or
 * the server closes (hijacked responses are not idle, so close would otherwise wait for them).
 */
export class SseStreams {
  private readonly open = new Set<() => void>()

  constructor (app: FastifyInstance) {
    app.addHook('preClose', async () => { for (const end of this.open) end() })
  }

  get size (): number { return this.open.size }

  async serve (request: FastifyRequest, reply: FastifyReply, what: string, start: (session: SseSession) => Promise<void>): Promise<void> {
    reply.hijack()
    const res = reply.raw
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    })
    const cleanups: Array<() => Promise<void>> = []
    let heartbeat: NodeJS.Timeout | undefined
    let closed = false
    const log: FastifyBaseLogger = request.log
    const runCleanup = (cleanup: () => Promise<void>): void => {
      cleanup().catch((err: unknown) => log.warn({ err }, `${what}: unsubscribe failed`))
    }
    const end = (): void => {
      if (closed) return
      closed = true
      clearInterval(heartbeat)
      this.open.delete(end)
      for (const cleanup of cleanups) runCleanup(cleanup)
      res.end()
    }
    this.open.add(end)
    res.on('close', end)
    const session: SseSession = {
      send: (event, data) => { res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`) },
      onEnd: (cleanup) => { if (closed) runCleanup(cleanup); else cleanups.push(cleanup) },
      get closed () { return closed },
    }
    try {
      res.write('retry: 5000\n\n')
      await start(session)
      // the client may have left while the stream started: no heartbeat for a closed stream
      if (!closed) heartbeat = setInterval(() => { res.write(': heartbeat\n\n') }, HEARTBEAT_MS)
    } catch (err) {
      log.error({ err }, `${what} failed`)
      end()
    }
  }
}
