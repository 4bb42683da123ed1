import closeWithGrace from 'close-with-grace'
import pino from 'pino'
import { loadConfigOrExit } from '../config.ts'
import { loggerOptions } from '../logger.ts'
import { createRedis } from '../plugins/redis.ts'
import { buildCommerceBackend } from './backend.ts'

// The embedded commerce backend on its own: `tsx src/embedded-commerce/main.ts` (PORT, HOST, REDIS_URL, JWT_SECRET, SEED).
async function main (): Promise<void> {
  const config = loadConfigOrExit()
  const logger = pino(loggerOptions(config.logLevel, config.env))
  const redis = config.redisUrl ? createRedis(config.redisUrl, config.redisKeyPrefix) : null
  if (redis) await redis.connect()
  else logger.warn('REDIS_URL is not set: commerce data lives in memory (one process, nothing survives a restart)')
  if (config.generatedSecrets.includes('JWT_SECRET')) logger.warn('JWT_SECRET is not set: tokens are signed with a random per-process secret')
  const app = await buildCommerceBackend({ redis, jwtSecret: config.jwtSecret, logger, seed: config.seed === 'demo', bodyLimit: config.bodyLimit })
  closeWithGrace({ delay: 10_000 }, async ({ err }) => {
    if (err) logger.error({ err }, 'closing after an error')
    await app.close()
    redis?.disconnect()
  })
  await app.listen({ port: config.port, host: config.host })
}

await main()
