import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import { AppError } from '../errors.ts'
import { keys } from '../stores/keys.ts'

interface RateLimitOptions {
  max: number
  windowMs: number
}

// Shared through Redis when there is one, so the limit holds across instances.
export default fp<RateLimitOptions>(async (app, opts) => {
  await app.register(rateLimit, {
    global: true,
    max: opts.max,
    timeWindow: opts.windowMs,
    redis: app.redis ?? undefined,
    nameSpace: keys.rateLimit(),
    skipOnError: true,
    errorResponseBuilder: (_request, context) => new AppError('RATE_LIMITED', `Too many requests: at most ${context.max} per ${context.after}`, {
      headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
    }),
  })
}, { name: 'rate-limit', dependencies: ['redis'] })
