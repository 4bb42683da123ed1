import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { verifyAccessToken, type Principal } from '../../auth/tokens.ts'
import { AppError } from '../../errors.ts'

export type MemberLoginResult =
  | { kind: 'ok', token: string, principal: Principal }
  | { kind: 'rejected' }
  | { kind: 'not-member' }
  | { kind: 'rate-limited', retryAfterMs: number }
  | { kind: 'unavailable' }

const tokenAnswer = z.object({ token: z.string() })

// An answer that is not one of our tokens is the login route's fault: reported as unavailable.
async function readIssuedToken (secret: string, body: unknown): Promise<{ token: string, principal: Principal } | undefined> {
  const answer = tokenAnswer.safeParse(body)
  if (!answer.success) return undefined
  try {
    return { token: answer.data.token, principal: await verifyAccessToken(secret, answer.data.token) }
  } catch (err) {
    if (err instanceof AppError) return undefined
    throw err
  }
}

/**
 * Logs a member in through this service's own `POST /auth/customer/emailpass` (spec, Authentication 7), in
 * process, so the form obeys the same rules as every other client; the answer's token is one of ours.
 */
export async function loginMember (app: FastifyInstance, tenantId: string, email: string, password: string): Promise<MemberLoginResult> {
  const res = await app.inject({ method: 'POST', url: '/auth/customer/emailpass', headers: { 'tenant-id': tenantId }, payload: { email, password } })
  switch (res.statusCode) {
    case 200: {
      const issued = await readIssuedToken(app.config.jwtSecret, res.json())
      if (issued) return { kind: 'ok', ...issued }
      break
    }
    case 400: case 401: return { kind: 'rejected' }
    case 403: return { kind: 'not-member' }
    case 429: return { kind: 'rate-limited', retryAfterMs: (Number(res.headers['retry-after']) || 60) * 1000 }
  }
  app.log.warn({ status: res.statusCode, tenantId }, 'member login through the chat form failed upstream')
  return { kind: 'unavailable' }
}
