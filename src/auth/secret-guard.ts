import { createHash, timingSafeEqual } from 'node:crypto'
import type { onRequestHookHandler } from 'fastify'
import { AppError } from '../errors.ts'
import { markAccess } from './route-access.ts'

const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

/**
 * A route taken with `Bearer <secret>` (a configured shared secret, not a user token): 401 with `message`
 * otherwise. Both sides are hashed first so the comparison takes the same time whatever the length sent.
 */
export function secretBearerGuard (secret: string, message: string): onRequestHookHandler {
  const matches = secretBearerMatcher(secret)
  return markAccess<onRequestHookHandler>(async (request) => {
    if (!matches(request.headers.authorization)) throw new AppError('UNAUTHORIZED', message)
  }, { scheme: 'secret', tenant: false })
}

/** Whether an Authorization header is `Bearer <secret>`, compared in constant time. */
export function secretBearerMatcher (secret: string): (header: string | undefined) => boolean {
  const expected = digest(`Bearer ${secret}`)
  return (given) => given !== undefined && timingSafeEqual(digest(given.trim()), expected)
}
