import { z } from 'zod'

export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
}).meta({ id: 'ErrorEnvelope' })

/** The error answers a route declares beside its own: every 4xx and 5xx is the envelope. */
export const errorResponses = { '4xx': errorEnvelopeSchema, '5xx': errorEnvelopeSchema }

/** A whole number from the query string; `?limit=` (empty) means not given, never 0. */
export function queryInt (min: number, max: number, fallback: number) {
  return z.preprocess((v) => v === '' ? undefined : v, z.coerce.number().int().min(min).max(max).default(fallback))
}

/** limit/offset pagination query (spec, Limits): limit 0 gives an empty page and the count. */
export function pageQuery (defaultLimit: number, maxLimit = 100) {
  return z.object({
    limit: queryInt(0, maxLimit, defaultLimit),
    offset: queryInt(0, Number.MAX_SAFE_INTEGER, 0),
  })
}

/** A body that may be left out: Fastify hands a missing one to the schema as null, which then means `{}`. */
export const optionalBody = <S extends z.ZodObject>(schema: S) => z.preprocess((b) => b ?? {}, schema)

/** Query booleans arrive as strings. */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true')

export const isoTimestamp = z.iso.datetime({ offset: true })
