import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import { z } from 'zod'
import { AppError } from '../errors.ts'
import { ROLES, type Role } from '../tenants/roles.ts'

/** Who is calling, whichever token form they came with. */
export interface Principal {
  sub: string
  role: Role
  tenants: string[]
  email: string | undefined
  name: string | undefined
  exp: number
  /** When the token was signed (Unix seconds; 0 when it says not): the guard refuses a staff token older than a change. */
  iat: number
}

// Our own claims (sub, role, tenants: the clubs the token may act in) and the commerce backend's form (actor_id, app_metadata).
const ownClaims = z.object({
  sub: z.string().min(1),
  role: z.enum(ROLES),
  tenants: z.array(z.string()),
  email: z.string().optional(),
  name: z.string().optional(),
  exp: z.number(),
  iat: z.number().optional(),
})
const commerceClaims = z.object({
  actor_id: z.string().min(1),
  actor_type: z.string().optional(),
  app_metadata: z.object({ role: z.enum(ROLES), tenants: z.array(z.string()) }).loose(),
  email: z.string().optional(),
  name: z.string().optional(),
  exp: z.number(),
  iat: z.number().optional(),
})

// The secret as a WebCrypto key, imported once: jose imports a raw secret again on every sign and verify, about
// half of a verification's CPU (62 against 33 µs a token), and the guard and the bot verify one per request or turn.
const keyCache = new Map<string, Promise<CryptoKey>>()
async function key (secret: string): Promise<CryptoKey> {
  let k = keyCache.get(secret)
  if (!k) {
    k = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
    keyCache.set(secret, k)
  }
  return await k
}

export interface TokenInput {
  sub: string
  role: Role
  tenants: string[]
  email?: string
  name?: string
}

/**
 * Signs one of our access tokens; `expiresIn` in seconds. `notBefore` (Unix seconds) lifts its iat to a staff
 * member's revocation time when that is a moment ahead (TenantStore.staffRevokedBefore).
 */
export async function signAccessToken (secret: string, input: TokenInput, expiresIn = 3600, notBefore = 0): Promise<string> {
  const { sub, ...claims } = input
  const now = Math.floor(Date.now() / 1000)
  return await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuedAt(Math.max(now, notBefore))
    .setExpirationTime(now + expiresIn)
    .sign(await key(secret))
}

/** Verifies a bearer token (HS256 only, exp required) and reads either claim form. Throws the 401 AppErrors. */
export async function verifyAccessToken (secret: string, token: string): Promise<Principal> {
  let payload: Record<string, unknown>
  try {
    ({ payload } = await jwtVerify(token, await key(secret), { algorithms: ['HS256'], requiredClaims: ['exp'] }))
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw new AppError('TOKEN_EXPIRED', 'Access token has expired')
    throw new AppError('INVALID_TOKEN', 'Access token is invalid')
  }
  const own = ownClaims.safeParse(payload)
  if (own.success) return { ...own.data, email: own.data.email, name: own.data.name, iat: own.data.iat ?? 0 }
  const upstream = commerceClaims.safeParse(payload)
  if (upstream.success) {
    const c = upstream.data
    return { sub: c.actor_id, role: c.app_metadata.role, tenants: c.app_metadata.tenants, email: c.email, name: c.name, exp: c.exp, iat: c.iat ?? 0 }
  }
  throw new AppError('INVALID_TOKEN', 'Access token carries no role or tenants')
}

/** Reads `Authorization: Bearer <token>`; missing is UNAUTHORIZED, any other shape INVALID_TOKEN. */
export function bearerToken (header: string | undefined): string {
  if (!header) throw new AppError('UNAUTHORIZED', 'Missing Authorization header')
  const match = /^Bearer ([A-Za-z0-9\-_.~+/]+=*)$/.exec(header.trim())
  if (!match?.[1]) throw new AppError('INVALID_TOKEN', 'Authorization header must be "Bearer <token>"')
  return match[1]
}
