import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { DevOutbox } from './outbound/transport.ts'
import { isAddress } from './provider/identity.ts'

// GET /api/chat/dev/outbox: the bot's replies to a phone, for the terminal simulator. Registered only when
// replies are not sent to a provider, NODE_ENV is not production and the server listens on loopback only:
// anyone who can reach it reads every member's chat.

/** 127.0.0.0/8, ::1 and localhost; 0.0.0.0 and :: (every interface) are not. */
export function isLoopbackHost (host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '')
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(h)
}

export async function devOutboxRoute (scope: FastifyInstance, outbox: DevOutbox): Promise<void> {
  if (!isLoopbackHost(scope.config.host)) {
    scope.log.warn({ host: scope.config.host }, 'the development chat outbox is off: HOST is not a loopback address')
    return
  }
  const app = scope.withTypeProvider<ZodTypeProvider>()
  app.get('/api/chat/dev/outbox', {
    config: { rateLimit: false },
    schema: {
      hide: true,
      querystring: z.object({
        phone: z.string().refine(isAddress, 'a phone number in E.164 digits, or a business-scoped user id'),
        after: z.coerce.number().int().min(0).default(0),
      }),
    },
  }, async (request) => ({ messages: outbox.list(request.query.phone, request.query.after) }))
}
