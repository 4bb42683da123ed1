import { z } from 'zod'

export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
}).meta({ id: 'ErrorEnvelope' })

/** limit/offset pagination query (spec, Limits): limit 0 gives an empty page and the count. */
export function pageQuery (defaultLimit: number, maxLimit = 100) {
  return z.object({
    limit: z.coerce.number().int().min(0).max(maxLimit).default(defaultLimit),
    offset: z.coerce.number().int().min(0).default(0),
  })
}

/** Query booleans arrive as strings. */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true')

export const isoTimestamp = z.iso.datetime({ offset: true })
