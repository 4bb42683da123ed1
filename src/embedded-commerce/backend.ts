import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { RedisClient } from '../stores/redis-client.ts'
import { commerceErrorHandler, commerceNotFoundHandler, invalidData, validatorCompiler } from './errors.ts'
import { createCommerceStore } from './store/index.ts'
import type { CommerceContext } from './services/context.ts'
import { seedDemo } from './demo.ts'
import { authRoutes } from './routes/auth.ts'
import { storeRoutes } from './routes/store.ts'
import { adminRoutes } from './routes/admin.ts'
import { inviteRoutes } from './routes/invites.ts'

export interface CommerceBackendOptions {
  /** Where it persists: Redis (keys under commerce:), or memory when null. */
  redis: RedisClient | null
  /** Signs and verifies its tokens: the service's JWT secret, so each side accepts the other's tokens. */
  jwtSecret: string
  logger?: FastifyBaseLogger
  /** Load the demo clubs' data (idempotent). */
  seed: boolean
  bodyLimit?: number
}

/**
 * The embedded commerce backend: its own Fastify instance speaking the subset of Medusa v2's HTTP dialect
 * the service uses (reference/medusa-v2). Not listening yet: the caller decides where.
 */
export async function buildCommerceBackend (options: CommerceBackendOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
  })
  const ctx: CommerceContext = { store: createCommerceStore(options.redis), jwtSecret: options.jwtSecret }

  // Like Express's body parser: an empty JSON body is {}, a malformed one a 400 in Medusa's form.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body).trim()
    if (text === '') {
      done(null, {})
      return
    }
    try {
      done(null, JSON.parse(text))
    } catch {
      done(invalidData('Invalid JSON body'), undefined)
    }
  })
  app.decorateRequest('commerceChannels', null as unknown as string[])
  app.decorateRequest('commerceActor', undefined)
  app.decorateRequest('commerceRegistration', undefined)
  app.setValidatorCompiler(validatorCompiler)
  app.setErrorHandler(commerceErrorHandler)
  app.setNotFoundHandler(commerceNotFoundHandler)

  app.get('/health', async (_request, reply) => reply.type('text/plain').send('OK'))
  await app.register(authRoutes, { ctx })
  await app.register(storeRoutes, { ctx })
  await app.register(inviteRoutes, { ctx })
  await app.register(adminRoutes, { ctx })

  if (options.seed) await seedDemo(ctx)
  return app
}
