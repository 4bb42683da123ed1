import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { keys } from './stores/keys.ts'

/** Often enough that proxies with a 30 or 60 second idle timeout keep the connection. */
export const HEARTBEAT_MS = 25_000

/**
 * Why the service ended a stream, sent as the event `end` {reason} just before the close: the token expired, its
 * staff member was removed or changed role, or the live updates could not be subscribed (retry later).
 */
type EndReason = 'token-expired' | 'access-revoked' | 'unavailable'

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
 *
 * A stream lives no longer than the token it was opened with (the guard checks a token once, when the stream
 * opens): it ends at the token's expiry, at once when its staff member is removed or changes role (a message on
 * their access channel, from any instance), and at the next heartbeat if that message was missed.
 */
export class SseStreams {
  private readonly open = new Set<() => void>()

  constructor (private readonly app: FastifyInstance) {
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
      clearTimeout(expiry)
      this.open.delete(end)
      for (const cleanup of cleanups) runCleanup(cleanup)
      res.end()
    }
    const session: SseSession = {
      send: (event, data) => { if (!closed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`) },
      onEnd: (cleanup) => { if (closed) runCleanup(cleanup); else cleanups.push(cleanup) },
      get closed () { return closed },
    }
    const endWith = (reason: EndReason): void => {
      session.send('end', { reason })
      end()
    }
    const principal = request.principal
    const expiry = setTimeout(() => { endWith('token-expired') }, Math.max(0, principal.exp * 1000 - Date.now()))
    const recheck = async (): Promise<void> => {
      const standing = await this.app.tokenStanding(principal)
      if (standing !== 'ok') endWith(standing === 'expired' ? 'token-expired' : 'access-revoked')
    }
    this.open.add(end)
    res.on('close', end)
    try {
      res.write('retry: 5000\n\n')
      if (principal.role !== 'member') {
        session.onEnd(
          await this.app.liveHub.subscribe(keys.staff.accessChanged(principal.sub), (m) => { if (m.type === 'access-changed') endWith('access-revoked') })
        )
        // a change made between the guard and the subscription
        await recheck()
      }
      if (!closed) await start(session)
      // the client may have left while the stream started: no heartbeat for a closed stream
      if (!closed) {
        heartbeat = setInterval(() => {
          res.write(': heartbeat\n\n')
          if (principal.role !== 'member') recheck().catch((err: unknown) => { log.warn({ err }, `${what}: token check failed`) })
        }, HEARTBEAT_MS)
      }
    } catch (err) {
      log.error({ err }, `${what} failed`)
      endWith('unavailable')
    }
  }
}
