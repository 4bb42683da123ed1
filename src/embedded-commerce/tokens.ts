import { jwtVerify, SignJWT } from 'jose'
import { bearerToken, verifyAccessToken, type Principal } from '../auth/tokens.ts'
import type { Role } from '../tenants/roles.ts'
import type { ActorType } from './model.ts'
import { unauthenticated } from './errors.ts'

// Tokens in Medusa's form: HS256, actor_id, actor_type, auth_identity_id and
// app_metadata {role, tenants, customer_id | user_id}, 24 h. Verification of whole tokens is the service's own
// (src/auth/tokens.ts), which reads both this form and the service's `sub`/`role`/`tenants` form.
const TOKEN_TTL_SECONDS = 24 * 3600

export interface ActorClaims {
  actorType: ActorType
  /** Empty for a registration token: an identity that has no customer yet. */
  actorId: string
  authIdentityId: string
  role?: Role
  tenants?: string[]
  email: string
  name?: string
}

const encoder = new TextEncoder()

export async function signActorToken (secret: string, claims: ActorClaims): Promise<string> {
  const appMetadata = claims.actorId
    ? { role: claims.role, tenants: claims.tenants ?? [], [`${claims.actorType}_id`]: claims.actorId }
    : {}
  return await new SignJWT({
    actor_id: claims.actorId,
    actor_type: claims.actorType,
    auth_identity_id: claims.authIdentityId,
    app_metadata: appMetadata,
    email: claims.email,
    ...(claims.name ? { name: claims.name } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + TOKEN_TTL_SECONDS)
    .sign(encoder.encode(secret))
}

/** Who calls, from a verified token: customers are the `member` role, staff (`admin`, `grower`) are users. */
export interface AuthContext {
  type: ActorType
  id: string
  role: Role
  tenants: string[]
}

/**
 * Tokens that verified, kept until they expire: a service calls with the same few tokens (its members', its clubs'
 * admin logins) again and again, and a signature check costs about 50 µs of CPU. Only a token that verified is
 * kept; once expired it is checked again (and refused). Bounded: past `max`, the oldest entry goes first.
 */
export class VerifiedTokens {
  private readonly known = new Map<string, { exp: number, context: AuthContext }>()

  constructor (private readonly verify: (token: string) => Promise<Principal>, private readonly max = 10_000, private readonly now = Date.now) {}

  /** The caller of a request with an Authorization header; any token that does not verify is a 401. */
  async contextOf (authorization: string | undefined): Promise<AuthContext | undefined> {
    if (!authorization) return undefined
    const kept = this.known.get(authorization)
    if (kept && kept.exp > this.now() / 1000) return { ...kept.context, tenants: [...kept.context.tenants] }
    this.known.delete(authorization)
    let p: Principal
    try {
      p = await this.verify(bearerToken(authorization))
    } catch {
      throw unauthenticated()
    }
    const context: AuthContext = { type: p.role === 'member' ? 'customer' : 'user', id: p.sub, role: p.role, tenants: p.tenants }
    if (this.known.size >= this.max) this.known.delete(this.known.keys().next().value as string)
    this.known.set(authorization, { exp: p.exp, context: { ...context, tenants: [...context.tenants] } })
    return context
  }
}

const verifiedBySecret = new Map<string, VerifiedTokens>()

/** The caller of a request with an Authorization header (tokens signed with `secret`); any token that does not verify is a 401. */
export async function authContextFrom (secret: string, authorization: string | undefined): Promise<AuthContext | undefined> {
  let tokens = verifiedBySecret.get(secret)
  if (!tokens) verifiedBySecret.set(secret, tokens = new VerifiedTokens(async (token) => await verifyAccessToken(secret, token)))
  return await tokens.contextOf(authorization)
}

/** Who a registration token stands for: an email/password identity, with no customer or user yet (actorId empty). */
export interface Registration {
  authIdentityId: string
  actorId: string
}

/** The identity a registration token (actor_id empty) stands for; anything else is a 401. */
export async function registrationIdentity (secret: string, authorization: string | undefined, actorType: ActorType = 'customer'): Promise<Registration> {
  try {
    const { payload } = await jwtVerify(bearerToken(authorization), encoder.encode(secret), { algorithms: ['HS256'], requiredClaims: ['exp'] })
    if (payload.actor_type !== actorType || typeof payload.auth_identity_id !== 'string' || typeof payload.actor_id !== 'string') throw unauthenticated()
    return { authIdentityId: payload.auth_identity_id, actorId: payload.actor_id }
  } catch {
    throw unauthenticated()
  }
}
