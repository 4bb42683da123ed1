import type { FastifyRequest, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { actorFrom, tenantOf, type Actor } from '../auth/actor.ts'
import { AppError, insufficientPermissions } from '../errors.ts'
import { bearerToken, verifyAccessToken, type Principal } from '../auth/tokens.ts'
import { type Role } from '../tenants/roles.ts'
import { markAccess } from '../auth/route-access.ts'
import type { Tenant } from '../tenants/model.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** One hook for a route tree: authenticate, then resolve the tenant, then check the role (in that order). */
    guard: (options?: GuardOptions) => onRequestHookHandler
    /** Whether a verified token still holds now: expired, or revoked by a change to its staff member since it was signed. */
    tokenStanding: (principal: Principal) => Promise<TokenStanding>
  }
  interface FastifyRequest {
    /** The verified token: who calls, and every club it names. Set by any `app.guard()`. */
    principal: Principal
    /** Who acts in which club (the `Tenant-id` one): what a route hands its service. Set by `app.guard()` unless `tenant: false`. */
    actor: Actor
  }
}

interface GuardOptions {
  roles?: readonly Role[]
  /** Resolve `Tenant-id` and set `request.actor` (default true). */
  tenant?: boolean
}

type TokenStanding = 'ok' | 'expired' | 'revoked'

const revokedToken = (): AppError => new AppError('INVALID_TOKEN', 'Access token was revoked: your staff access changed, log in again')

interface AuthPluginOptions {
  jwtSecret: string
}

/** The club a request acts in: the one its `Tenant-id` header names, or without the header the token's only club. */
async function resolveTenant (request: FastifyRequest, principal: Principal): Promise<Tenant> {
  const header = request.headers['tenant-id']
  const requested = Array.isArray(header) ? header[0] : header
  let tenantId = requested?.trim()
  if (!tenantId) {
    if (principal.tenants.length !== 1) {
      throw new AppError('MISSING_REQUIRED_FIELD', 'Tenant-id header is required', {
        details: { errors: { 'Tenant-id': ['Required'] } }
      })
    }
    tenantId = principal.tenants[0] as string
  }
  return await tenantOf(request.server.tenants, principal, tenantId)
}

export default fp<AuthPluginOptions>(async (app, opts) => {
  app.decorateRequest('principal', null as unknown as Principal)
  app.decorateRequest('actor', null as unknown as Actor)
  // One GET per staff request (members' tokens carry no staff access): a role change or a removal is seen by the
  // next request on every instance, since nothing of it is kept in memory.
  const tokenStanding = async (principal: Principal): Promise<TokenStanding> => {
    if (principal.exp * 1000 <= Date.now()) return 'expired'
    if (principal.role === 'member') return 'ok'
    return principal.iat < await app.tenants.staffRevokedBefore(principal.sub) ? 'revoked' : 'ok'
  }
  app.decorate('tokenStanding', tokenStanding)
  app.decorate('guard', (options: GuardOptions = {}) => {
    const roles = options.roles
    const withTenant = options.tenant ?? true
    return markAccess<onRequestHookHandler>(async (request) => {
      const principal = await verifyAccessToken(opts.jwtSecret, bearerToken(request.headers.authorization))
      if (await tokenStanding(principal) === 'revoked') throw revokedToken()
      request.principal = principal
      if (withTenant) request.actor = actorFrom(principal, await resolveTenant(request, principal))
      if (roles && !roles.includes(principal.role)) throw insufficientPermissions()
    }, { scheme: 'bearer', tenant: withTenant, ...(roles ? { roles } : {}) })
  })
}, { name: 'auth', dependencies: ['tenants'] })
