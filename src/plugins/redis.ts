import fp from 'fastify-plugin'
import { Redis } from 'ioredis'

declare module 'fastify' {
  interface FastifyInstance {
    /** The shared Redis client, or null when the service runs on its embedded in-memory stores. */
    redis: Redis | null
  }
}

export interface RedisPluginOptions {
  url: string | undefined
  keyPrefix: string
  /** A client made by the caller (tests): used as is and not closed here. */
  client?: Redis
}

/** Opens a client the way every part of the service wants it: fail fast while disconnected, never queue forever. */
export function createRedis (url: string, keyPrefix: string): Redis {
  return new Redis(url, {
    keyPrefix,
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  })
}

export default fp<RedisPluginOptions>(async (app, opts) => {
  if (opts.client) {
    app.decorate('redis', opts.client)
    return
  }
  if (!opts.url) {
    app.log.warn('REDIS_URL is not set: running on in-memory stores (one process, nothing survives a restart)')
    app.decorate('redis', null)
    return
  }
  const client = createRedis(opts.url, opts.keyPrefix)
  client.on('error', (err) => app.log.error({ err: { message: err.message } }, 'redis error'))
  await client.connect()
  app.decorate('redis', client)
  app.addHook('onClose', async () => { await client.quit() })
}, { name: 'redis' })
