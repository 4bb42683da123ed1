import { createHash, timingSafeEqual } from 'node:crypto'
import type { onRequestHookHandler } from 'fastify'
import { AppError } from '../errors.ts'

const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

/**
 * A route taken with `Bearer <secret>` (a configured shared secret, not a user token): 401 with `message`
 * otherwise. Both sides are hashed first so the comparison takes the same time whatever the length sent.
 */
export function secretBearerGuard (secret: string, message: string): onRequestHookHandler {
  const expected = digest(`Bearer ${secret}`)
  return async (request) => {
    const given = request.headers.authorization
    if (!given || !timingSafeEqual(digest(given.trim()), expected)) throw new AppError('UNAUTHORIZED', message)
  }
}
