import { createHash, timingSafeEqual } from 'node:crypto'
import type { onRequestHookHandler } from 'fastify'
import { AppError } from '../errors.ts'

const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

/**
 * Spec, Authentication 5: the reminder generator takes `Bearer <CRON_API_SECRET>`, not a user token. Both sides
 * are hashed first so the comparison takes the same time whatever the length of what was sent.
 */
export function cronSecretGuard (secret: string): onRequestHookHandler {
  const expected = digest(`Bearer ${secret}`)
  return async (request) => {
    const given = request.headers.authorization
    if (!given || !timingSafeEqual(digest(given.trim()), expected)) {
      throw new AppError('UNAUTHORIZED', 'A valid cron secret is required')
    }
  }
}
