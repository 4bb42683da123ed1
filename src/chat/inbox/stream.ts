import type { FastifyInstance } from 'fastify'
import type { LiveMessage } from '../../notifications/live.ts'
import { SseStreams } from '../../sse.ts'
import { keys } from '../../stores/keys.ts'

/**
 * GET /api/chat/conversations/stream (Server-Sent Events, admin and grower): the club's conversation activity
 * from every instance, through the live hub's pub/sub: `message` {phone, message} for each message stored
 * (member, bot, staff, system) and `handoff` {phone, handoff} when a person is asked for, takes over, or the bot
 * takes back. A heartbeat comment keeps proxies from closing an idle stream.
 */
export async function inboxStreamRoutes (app: FastifyInstance) {
  const streams = new SseStreams(app)

  app.get('/api/chat/conversations/stream', {
    onRequest: app.guard({ roles: ['admin', 'grower'] }),
    schema: { tags: ['chat-staff'], summary: "Live activity of the club's conversations (text/event-stream): events `message` and `handoff` (admin, grower)" },
  }, async (request, reply) => {
    await streams.serve(request, reply, 'chat activity stream', async (session) => {
      const onMessage = (m: LiveMessage): void => {
        if (m.type !== 'chat') return
        const event = m.event as { kind: string }
        session.send(event.kind, event)
      }
      session.onEnd(await app.liveHub.subscribe(keys.chat.clubActivity(request.actor.tenant.id), onMessage))
    })
  })
}
