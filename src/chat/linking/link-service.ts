import { randomUUID } from 'node:crypto'
import { verifyAccessToken } from '../../auth/tokens.ts'
import { AppError } from '../../errors.ts'
import type { TenantStore } from '../../tenants/store.ts'
import type { LinkCodeStore } from './link-code-store.ts'
import type { LinkRecord } from './link-record.ts'

export type LinkRequest = Omit<LinkRecord, 'tenantName'>

export interface LinkServiceDeps {
  codes: LinkCodeStore
  tenants: TenantStore
  jwtSecret: string
}

/** Issues a code only to the holder of that member's token for that club. */
export async function createLinkCode (deps: LinkServiceDeps, request: LinkRequest): Promise<string> {
  const principal = await verifyAccessToken(deps.jwtSecret, request.token).catch((err: unknown) => {
    if (!(err instanceof AppError)) throw err
    throw new AppError('INVALID_TOKEN', err.code === 'TOKEN_EXPIRED' ? 'Token has expired' : 'Token is invalid')
  })
  if (principal.sub !== request.customerId) throw new AppError('INVALID_TOKEN', 'Token does not belong to this customer')
  if (!principal.tenants.includes(request.tenantId)) throw new AppError('INVALID_TOKEN', 'Token is not valid for this tenant')
  // The body's email becomes the linked account's: it must be the token's own when the token names one.
  if (principal.email && principal.email.toLowerCase() !== request.email.trim().toLowerCase()) {
    throw new AppError('INVALID_TOKEN', 'Token does not belong to this email')
  }
  const tenant = await deps.tenants.get(request.tenantId)
  if (!tenant) throw new AppError('NOT_FOUND', 'Tenant not found')
  const code = randomUUID()
  await deps.codes.create(code, { ...request, tenantName: tenant.name })
  return code
}

/**
 * Single use: the record is gone once returned. A code bound to a member's phone is found only from that phone
 * (the bot passes the sender's); to anyone else, the link route included, it is not found, and it stays.
 */
export async function consumeLinkCode (codes: LinkCodeStore, code: string, phone?: string): Promise<LinkRecord> {
  const record = await codes.consume(code, phone)
  if (!record) throw new AppError('NOT_FOUND', 'Link code not found')
  return {
    customerId: record.customerId, tenantId: record.tenantId, tenantName: record.tenantName, email: record.email, name: record.name, token: record.token
  }
}
