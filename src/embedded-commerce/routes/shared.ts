import type { FastifyRequest } from 'fastify'
import { z } from 'zod'
import { parseFields, project } from '../fields.ts'
import { parseInput, UnauthorizedError } from '../errors.ts'
import type { CommerceContext } from '../services/context.ts'
import type { Actor } from '../tokens.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Embedded commerce backend: the sales channels of the request's publishable key (store routes). */
    commerceChannels: string[]
    /** Embedded commerce backend: who the bearer token says is calling, if anyone. */
    commerceActor: Actor | undefined
  }
}

export interface RouteDeps {
  ctx: CommerceContext
}

/** limit/offset/fields/order of Medusa's list routes; other keys are the route's filters. */
export function listQuery (defaultLimit: number) {
  return z.looseObject({
    limit: z.coerce.number().int().min(0).default(defaultLimit),
    offset: z.coerce.number().int().min(0).default(0),
    fields: z.string().optional(),
    order: z.string().optional(),
  })
}

export const fieldsQuery = z.looseObject({ fields: z.string().optional() })

export function query<S extends z.ZodType> (schema: S, request: FastifyRequest): z.output<S> {
  return parseInput(schema, request.query)
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
export function paged (name: string, items: readonly unknown[], count: number, q: { offset: number, limit: number, fields?: string }): Record<string, unknown> {
  const selection = parseFields(q.fields)
  return { [name]: items.map((v) => project(v, selection)), count, offset: q.offset, limit: q.limit }
}

/** A page of records under their name, with count/offset/limit, and `fields` applied to each. */
export function many (name: string, all: readonly unknown[], q: { offset: number, limit: number, fields?: string }): Record<string, unknown> {
  return paged(name, all.slice(q.offset, q.offset + q.limit), all.length, q)
}

export function requireActor (request: FastifyRequest, type: Actor['type']): Actor {
  const actor = request.commerceActor
  if (!actor || actor.type !== type) throw new UnauthorizedError()
  return actor
}

export const idParams = z.object({ id: z.string().min(1) })
