import type { FastifyInstance } from 'fastify'
import type { LiveMessage } from '../../notifications/live.ts'
import { HEARTBEAT_MS } from '../../notifications/stream.ts'
import { keys } from '../../stores/keys.ts'

/**
 * GET /api/chat/conversations/stream (Server-Sent Events, admin and grower): the club's conversation activity
 * from every instance, through the live hub's pub/sub: `message` {phone, message} for each message stored
 * (member, bot, staff, system) and `handoff` {phone, handoff} when a person is asked for, takes over, or the bot
 * takes back. A heartbeat comment keeps proxies from closing an idle stream.
 */
export async function inboxStreamRoutes (app: FastifyInstance) {
  const open = new Set<() => void>()
  app.addHook('preClose', async () => { for (const end of open) end() })

  app.get('/api/chat/conversations/stream', {
    onRequest: app.guard({ roles: ['admin', 'grower'] }),
    schema: { tags: ['chat-staff'], summary: "Live activity of the club's conversations (text/event-stream): events `message` and `handoff` (admin, grower)" },
  }, async (request, reply) => {
    reply.hijack()
    const res = reply.raw
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no', 'x-request-id': request.id })
    let unsubscribe: (() => Promise<void>) | undefined
    let heartbeat: NodeJS.Timeout | undefined
    let closed = false
    const end = (): void => {
      if (closed) return
      closed = true
      clearInterval(heartbeat)
      open.delete(end)
      unsubscribe?.().catch((err: unknown) => request.log.warn({ err }, 'chat activity unsubscribe failed'))
      res.end()
    }
    open.add(end)
    res.on('close', end)
    const onMessage = (m: LiveMessage): void => {
      if (m.type !== 'chat') return
      const event = m.event as { kind: string }
      res.write(`event: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`)
    }
    try {
      unsubscribe = await app.liveHub.subscribe(keys.chat.clubActivity(request.tenant.id), onMessage)
      if (closed) return end()
      res.write('retry: 5000\n\n')
      heartbeat = setInterval(() => { res.write(': heartbeat\n\n') }, HEARTBEAT_MS)
    } catch (err) {
      request.log.error({ err }, 'chat activity stream failed')
      end()
    }
  })
}
