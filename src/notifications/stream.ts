import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { Gauge } from 'prom-client'
import type { LiveMessage } from './live.ts'
import { recipientChannel, roleChannel, type Reader } from './service.ts'

/** Often enough that proxies with a 30 or 60 second idle timeout keep the connection. */
export const HEARTBEAT_MS = 25_000

/**
 * GET /api/notifications/stream (Server-Sent Events): the caller's unread count at once and after every
 * change, and each new notification, pushed from any instance. Beyond the spec's 30-second polling.
 */
export async function notificationStreamRoutes (fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const open = new Set<() => void>()
  // eslint-disable-next-line no-new -- registered on app.metrics, read at each scrape
  new Gauge({ name: 'club_notification_streams_open', help: 'Notification streams (SSE) open on this instance', registers: [app.metrics], collect () { this.set(open.size) } })
  // hijacked responses are not idle, so close would wait for them: end them first
  app.addHook('preClose', async () => { for (const end of open) end() })

  app.get('/api/notifications/stream', {
    onRequest: app.guard(),
    schema: {
      tags: ['notifications'],
      summary: 'Live updates (text/event-stream): events `unread-count` {count} and `notification` (a Notification)',
    },
  }, async (request, reply) => {
    const r: Reader = { tenantId: request.tenant.id, recipientId: request.principal.sub, role: request.principal.role }
    reply.hijack()
    const res = reply.raw
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    })
    const send = (event: string, data: unknown): void => { res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`) }
    const unsubscribes: Array<() => Promise<void>> = []
    let heartbeat: NodeJS.Timeout | undefined
    let closed = false
    const end = (): void => {
      if (closed) return
      closed = true
      clearInterval(heartbeat)
      open.delete(end)
      for (const unsubscribe of unsubscribes) unsubscribe().catch((err: unknown) => request.log.warn({ err }, 'live unsubscribe failed'))
      res.end()
    }
    open.add(end)
    res.on('close', end)

    const onMessage = (m: LiveMessage): void => {
      if (m.type === 'notification') {
        send('notification', m.notification)
        send('unread-count', { count: m.unreadCount })
      } else if (m.type === 'unread-count') {
        send('unread-count', { count: m.count })
      }
    }
    const onBroadcast = (): void => {
      app.notifications.deliverBroadcasts(r).catch((err: unknown) => request.log.warn({ err }, 'broadcast delivery failed'))
    }
    try {
      // subscribe before reading the count, so nothing created in between is missed
      unsubscribes.push(await app.liveHub.subscribe(recipientChannel(r), onMessage))
      unsubscribes.push(await app.liveHub.subscribe(roleChannel(r.tenantId, r.role), onBroadcast))
      if (closed) return end()
      res.write('retry: 5000\n\n')
      const count = await app.notifications.unreadCount(r)
      // the client may have left while the count was read: no heartbeat for a closed stream
      if (closed) return
      send('unread-count', { count })
      heartbeat = setInterval(() => { res.write(': heartbeat\n\n') }, HEARTBEAT_MS)
    } catch (err) {
      request.log.error({ err }, 'notification stream failed')
      end()
    }
  })
}
