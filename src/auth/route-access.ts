import type { Role } from '../tenants/roles.ts'

/** What a route's `onRequest` hook asks of a caller: read by the OpenAPI document, so docs follow the guard. */
export interface RouteAccess {
  /** The security scheme of `/openapi.json` the caller answers. */
  scheme: 'bearer' | 'secret'
  /** Whether the hook resolves a club from `Tenant-id` (or the token's only club). */
  tenant: boolean
  roles?: readonly Role[]
}

const marks = new WeakMap<object, RouteAccess>()

/** Remembers what `hook` checks; answers the hook itself. */
export function markAccess<T extends object> (hook: T, access: RouteAccess): T {
  marks.set(hook, access)
  return hook
}

/** What a route's hooks ask of a caller, or undefined for a public route. */
export function accessOf (onRequest: unknown): RouteAccess | undefined {
  const hooks = Array.isArray(onRequest) ? onRequest : [onRequest]
  for (const hook of hooks) {
    const access = typeof hook === 'function' ? marks.get(hook) : undefined
    if (access) return access
  }
  return undefined
}
