import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'

export default fp(async (fastify: FastifyInstance) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const exempt = { rateLimit: false } as const
  app.get('/health', {
    config: exempt,
    schema: { tags: ['health'], summary: 'Process is up', security: [], response: { 200: z.object({ status: z.literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }))

  app.get('/ready', {
    config: exempt,
    schema: {
      tags: ['health'],
      summary: 'Redis is reachable (always ready on in-memory stores)',
      security: [],
      response: { 200: z.object({ status: z.literal('ready'), redis: z.enum(['up', 'memory']) }), 503: z.object({ status: z.literal('unavailable'), redis: z.literal('down') }) },
    },
  }, async (_request, reply) => {
    if (!app.redis) return { status: 'ready' as const, redis: 'memory' as const }
    try {
      await app.redis.ping()
      return { status: 'ready' as const, redis: 'up' as const }
    } catch {
      return reply.status(503).send({ status: 'unavailable' as const, redis: 'down' as const })
    }
  })
}, { name: 'health', dependencies: ['redis'] })
