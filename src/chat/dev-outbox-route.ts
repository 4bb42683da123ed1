import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { DevOutbox } from './outbound/messenger.ts'

// GET /api/chat/dev/outbox: the bot's replies to a phone, for the terminal simulator. Registered only when
// replies are not sent to a provider and NODE_ENV is not production.

export async function devOutboxRoute (scope: FastifyInstance, outbox: DevOutbox): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>()
  app.get('/api/chat/dev/outbox', {
    config: { rateLimit: false },
    schema: {
      hide: true,
      querystring: z.object({
        phone: z.string().regex(/^\d{6,15}$/),
        after: z.coerce.number().int().min(0).default(0),
      }),
    },
  }, async (request) => ({ messages: outbox.list(request.query.phone, request.query.after) }))
}
