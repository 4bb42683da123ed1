import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyServerOptions } from 'fastify'
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import type { Config } from './config.ts'
import { errorHandler, notFoundHandler } from './errors.ts'
import { refuseDeepJson } from './schemas/json-limits.ts'
import { loggerOptions } from './logger.ts'
import redisPlugin from './plugins/redis.ts'
import type { RedisClient } from './stores/redis-client.ts'
import metricsPlugin from './plugins/metrics.ts'
import tenantsPlugin from './plugins/tenants.ts'
import locksPlugin from './plugins/locks.ts'
import authPlugin from './plugins/auth.ts'
import openapiPlugin from './plugins/openapi.ts'
import rateLimitPlugin from './plugins/rate-limit.ts'
import securityHeadersPlugin from './plugins/security-headers.ts'
import healthRoutes from './health.ts'
import seedPlugin from './seed.ts'
import clubPlugin from './club/index.ts'
import dispensingPlugin from './dispensing/index.ts'
import cropsPlugin from './crops/index.ts'
import batchesPlugin from './batches/index.ts'
import productsPlugin from './products/index.ts'
import embeddedCommercePlugin from './embedded-commerce/plugin.ts'
import commercePlugin from './commerce/index.ts'
import accountsPlugin from './accounts/index.ts'
import ordersPlugin from './orders/index.ts'
import contentPlugin from './content/index.ts'
import notificationsPlugin from './notifications/index.ts'
import chatLinkingPlugin from './chat/linking/index.ts'
import chatPlugin, { type ChatPluginOptions } from './chat/index.ts'
import consolePlugin from './console/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
  }
}

export interface AppDeps {
  /** A Redis client made by the caller (tests); otherwise one is opened from config.redisUrl or redisClusterNodes. */
  redis?: RedisClient
  logger?: FastifyServerOptions['logger']
  /** Chat bot tuning (tests): clock, worker, provider retries. */
  chat?: ChatPluginOptions
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

/**
 * Behind a proxy, request.ip is the client its X-Forwarded-For names, only when the proxy is trusted (TRUST_PROXY).
 * Fastify 5.12 trusts nothing for a number (a hop count cannot tell the proxy from a client that bypasses it), so
 * a hop count is given as the rule it stands for: the nearest `hops` addresses are proxies, whatever they are.
 */
function trustProxyOption (trust: Config['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust
  return trust === false ? false : [...trust]
}

export async function buildApp (config: Config, deps: AppDeps = {}) {
  const app = Fastify({
    logger: deps.logger ?? loggerOptions(config.logLevel, config.env),
    bodyLimit: config.bodyLimit,
    trustProxy: trustProxyOption(config.trustProxy),
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
  }).withTypeProvider<ZodTypeProvider>()

  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  app.setErrorHandler(errorHandler)
  // A POST without a body (capture, cancel, complete...) may still say it is JSON, as `curl -H` does: that is no
  // body, not malformed JSON. Everything else goes through Fastify's own parser (prototype poisoning refused).
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined)
    // Deep nesting is refused before anything (the parser, zod, a copy, Lua) recurses into it.
    try {
      refuseDeepJson(body as string)
    } catch (err) {
      return done(err as Error, undefined)
    }
    parseJson(request, body as string, done)
  })
  app.decorate('config', config)
  app.decorate('demoSeeders', [])
  // Once closing, each answer still in flight also closes its keep-alive connection, so that the server's close
  // waits for those answers and no longer (an idle keep-alive client would otherwise hold it open).
  let closing = false
  app.addHook('preClose', async () => { closing = true })
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
    if (closing) reply.header('connection', 'close')
  })

  await app.register(metricsPlugin)
  await app.register(securityHeadersPlugin)
  await app.register(redisPlugin, { url: config.redisUrl, clusterNodes: config.redisClusterNodes, keyPrefix: config.redisKeyPrefix, client: deps.redis })
  await app.register(tenantsPlugin)
  await app.register(locksPlugin)
  await app.register(authPlugin, { jwtSecret: config.jwtSecret })
  await app.register(openapiPlugin)
  await app.register(rateLimitPlugin, config.rateLimit)
  // Unknown routes count against the limit too, so scanning the API is throttled.
  app.setNotFoundHandler({ preHandler: app.rateLimit() }, notFoundHandler)
  await app.register(embeddedCommercePlugin)
  await app.register(commercePlugin)
  await app.register(healthRoutes)
  await app.register(dispensingPlugin)
  await app.register(clubPlugin)
  await app.register(cropsPlugin)
  await app.register(contentPlugin)
  await app.register(notificationsPlugin)
  await app.register(productsPlugin)
  await app.register(batchesPlugin)
  await app.register(ordersPlugin)
  await app.register(accountsPlugin)
  await app.register(chatLinkingPlugin)
  await app.register(chatPlugin, deps.chat ?? {})
  await app.register(consolePlugin)
  await app.register(seedPlugin)
  return app
}

export type BuiltApp = Awaited<ReturnType<typeof buildApp>>
