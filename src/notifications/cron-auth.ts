import type { onRequestHookHandler } from 'fastify'
import { secretBearerGuard } from '../auth/secret-guard.ts'

/** Spec, Authentication 5: the reminder generator takes `Bearer <CRON_API_SECRET>`, not a user token. */
export function cronSecretGuard (secret: string): onRequestHookHandler {
  return secretBearerGuard(secret, 'A valid cron secret is required')
}
