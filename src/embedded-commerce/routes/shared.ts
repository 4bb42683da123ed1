import type { FastifyRequest } from 'fastify'
import { parseFields, project } from '../fields.ts'
import { unauthenticated } from '../errors.ts'
import type { CommerceContext } from '../services/context.ts'
import type { ActorType } from '../model.ts'
import { authContextFrom, registrationIdentity, type AuthContext, type Registration } from '../tokens.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Embedded commerce backend: the sales channels of the request's publishable key (store routes). */
    commerceChannels: string[]
    /** Embedded commerce backend: who the bearer token says is calling, if anyone. */
    commerceActor: AuthContext | undefined
    /** Embedded commerce backend: the identity of a registration token (registration and invite routes). */
    commerceRegistration: Registration | undefined
  }
}

export interface RouteDeps {
  ctx: CommerceContext
}

/** A record with `fields` applied. */
export function select (value: unknown, fields: string | undefined): unknown {
  return project(value, parseFields(fields))
}

/** One record under its name, with `fields` applied. */
export function one (name: string, value: unknown, fields: string | undefined): Record<string, unknown> {
  return { [name]: select(value, fields) }
}

/** An already cut page (`items`) of `count` records, with `fields` applied to each. */
export function paged (
  name: string, items: readonly unknown[], count: number, q: { offset: number, limit: number, fields?: string | undefined }
): Record<string, unknown> {
  const selection = parseFields(q.fields)
  return { [name]: items.map((v) => project(v, selection)), count, offset: q.offset, limit: q.limit }
}

/** A page of records under their name, with count/offset/limit, and `fields` applied to each. */
export function many (name: string, all: readonly unknown[], q: { offset: number, limit: number, fields?: string | undefined }): Record<string, unknown> {
  return paged(name, all.slice(q.offset, q.offset + q.limit), all.length, q)
}

// Who may call is settled in hooks (onRequest or preValidation), before the route's schemas are checked: without
// a valid token the answer is 401 whatever the request holds, as from Medusa's authentication middleware.

/** A staff token (Medusa's user form, or the service's own admin/grower token). */
export function staffOnly (ctx: CommerceContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const actor = await authContextFrom(ctx.jwtSecret, request.headers.authorization)
    if (!actor || actor.type !== 'user') throw unauthenticated()
    request.commerceActor = actor
  }
}

/** A registration token of `actorType` (registering a customer, accepting an invite). */
export function registeringOnly (ctx: CommerceContext, actorType: ActorType) {
  return async (request: FastifyRequest): Promise<void> => {
    request.commerceRegistration = await registrationIdentity(ctx.jwtSecret, request.headers.authorization, actorType)
  }
}

/** preValidation, after the store's onRequest hook has read the token: a customer token. */
export async function customerOnly (request: FastifyRequest): Promise<void> {
  if (request.commerceActor?.type !== 'customer') throw unauthenticated()
}

/** The caller a route's hook (staffOnly, customerOnly) has admitted. */
export function actorOf (request: FastifyRequest): AuthContext {
  if (!request.commerceActor) throw unauthenticated()
  return request.commerceActor
}

/** The identity of a registration token a route's hook has checked. */
export function registrationOf (request: FastifyRequest): Registration {
  if (!request.commerceRegistration) throw unauthenticated()
  return request.commerceRegistration
}
