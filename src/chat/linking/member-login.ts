import { verifyAccessToken, type Principal } from '../../auth/tokens.ts'
import { loginBody, type LoginService } from '../../accounts/login.ts'
import { AppError } from '../../errors.ts'
import type { FastifyBaseLogger } from 'fastify'

export type MemberLoginResult =
  | { kind: 'ok', token: string, principal: Principal }
  | { kind: 'rejected' }
  | { kind: 'not-member' }
  | { kind: 'rate-limited', retryAfterMs: number }
  | { kind: 'unavailable' }

/**
 * Logs a member in through the accounts service (the one behind `POST /auth/customer/emailpass`, spec,
 * Authentication 7), in process, with the route's own checks of the email and password, so the form obeys the
 * same rules as every other client; the token is one of ours. Its refusals become the form's outcomes.
 */
export async function loginMember (
  accounts: Pick<LoginService, 'login'>, jwtSecret: string, log: FastifyBaseLogger, tenantId: string, email: string, password: string
): Promise<MemberLoginResult> {
  if (!loginBody.safeParse({ email, password }).success) return { kind: 'rejected' }
  try {
    const token = await accounts.login('customer', email, password, tenantId)
    return { kind: 'ok', token, principal: await verifyAccessToken(jwtSecret, token) }
  } catch (err) {
    // anything but the service's own refusals (a backend down, a bug) is the service's fault: unavailable
    const status = err instanceof AppError ? err.statusCode : 500
    if (status === 400 || status === 401) return { kind: 'rejected' }
    if (status === 403) return { kind: 'not-member' }
    if (status === 429) return { kind: 'rate-limited', retryAfterMs: (Number((err as AppError).headers?.['retry-after']) || 60) * 1000 }
    log.warn({ err, status, tenantId }, 'member login through the chat form failed upstream')
  }
  return { kind: 'unavailable' }
}
