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
  /** A staff token's access version (0 when it carries none): the guard refuses it once the staff's is higher. */
  sv: number
}

// Our own claims (sub, role, tenants: the clubs the token may act in) and the commerce backend's form (actor_id, app_metadata).
const ownClaims = z.object({
  sub: z.string().min(1),
  role: z.enum(ROLES),
  tenants: z.array(z.string()),
  email: z.string().optional(),
  name: z.string().optional(),
  exp: z.number(),
  sv: z.number().int().min(0).optional(),
})
const commerceClaims = z.object({
  actor_id: z.string().min(1),
  actor_type: z.string().optional(),
  app_metadata: z.object({ role: z.enum(ROLES), tenants: z.array(z.string()) }).loose(),
  email: z.string().optional(),
  name: z.string().optional(),
  exp: z.number(),
})

const encoder = new TextEncoder()
const keyCache = new Map<string, Uint8Array>()
function key (secret: string): Uint8Array {
  let k = keyCache.get(secret)
  if (!k) {
    k = encoder.encode(secret)
    keyCache.set(secret, k)
  }
  return k
}

export interface TokenInput {
  sub: string
  role: Role
  tenants: string[]
  email?: string
  name?: string
  /** Staff only: their access version when the token is signed (TenantStore.staffVersion). */
  sv?: number
}

/** Signs one of our access tokens; `expiresIn` in seconds. */
export async function signAccessToken (secret: string, input: TokenInput, expiresIn = 3600): Promise<string> {
  const { sub, ...claims } = input
  return await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + expiresIn)
    .sign(key(secret))
}

/** Verifies a bearer token (HS256 only, exp required) and reads either claim form. Throws the 401 AppErrors. */
export async function verifyAccessToken (secret: string, token: string): Promise<Principal> {
  let payload: Record<string, unknown>
  try {
    ({ payload } = await jwtVerify(token, key(secret), { algorithms: ['HS256'], requiredClaims: ['exp'] }))
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw new AppError('TOKEN_EXPIRED', 'Access token has expired')
    throw new AppError('INVALID_TOKEN', 'Access token is invalid')
  }
  const own = ownClaims.safeParse(payload)
  if (own.success) return { ...own.data, email: own.data.email, name: own.data.name, sv: own.data.sv ?? 0 }
  const upstream = commerceClaims.safeParse(payload)
  if (upstream.success) {
    const c = upstream.data
    return { sub: c.actor_id, role: c.app_metadata.role, tenants: c.app_metadata.tenants, email: c.email, name: c.name, exp: c.exp, sv: 0 }
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
