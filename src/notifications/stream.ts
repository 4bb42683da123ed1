import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { Gauge } from 'prom-client'
import { SseStreams } from '../sse.ts'
import type { LiveMessage } from './live.ts'
import { readerOf, recipientChannel, roleChannel } from './service.ts'

/**
 * GET /api/notifications/stream (Server-Sent Events): the caller's unread count at once and after every
 * change, and each new notification, pushed from any instance. Beyond the spec's 30-second polling.
 */
export async function notificationStreamRoutes (fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const streams = new SseStreams(app)
  // eslint-disable-next-line no-new -- registered on app.metrics, read at each scrape
  new Gauge({
    name: 'club_notification_streams_open',
    help: 'Notification streams (SSE) open on this instance',
    registers: [app.metrics],
    collect () { this.set(streams.size) }
  })

  app.get('/api/notifications/stream', {
    onRequest: app.guard(),
    schema: {
      tags: ['notifications'],
      summary: 'Live updates (text/event-stream): events `unread-count` {count} and `notification` (a Notification)',
    },
  }, async (request, reply) => {
    const r = readerOf(request.actor)
    await streams.serve(request, reply, 'notification stream', async (session) => {
      const onMessage = (m: LiveMessage): void => {
        if (m.type === 'notification') {
          session.send('notification', m.notification)
          session.send('unread-count', { count: m.unreadCount })
        } else if (m.type === 'unread-count') {
          session.send('unread-count', { count: m.count })
        }
      }
      const onBroadcast = (): void => {
        app.notifications.deliverBroadcasts(r).catch((err: unknown) => request.log.warn({ err }, 'broadcast delivery failed'))
      }
      // subscribe before reading the count, so nothing created in between is missed
      session.onEnd(await app.liveHub.subscribe(recipientChannel(r), onMessage))
      session.onEnd(await app.liveHub.subscribe(roleChannel(r.tenantId, r.role), onBroadcast))
      if (session.closed) return
      const count = await app.notifications.unreadCount(r)
      if (!session.closed) session.send('unread-count', { count })
    })
  })
}
