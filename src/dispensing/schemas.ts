import { z } from 'zod'
import { clubRulesSchema, MAX_CAP_GRAMS, presetNameSchema } from '../tenants/rules.ts'
import { isoTimestamp } from '../schemas/common.ts'
import { calendarDay, DOCUMENT_KINDS, standingSchema, STATUSES } from './standing.ts'

// The dispensing routes' schemas, shared by the rules, members and orders routes.

export const rulesAnswer = z.object({ rules: clubRulesSchema.meta({ id: 'ClubRules' }) })

/** A preset by name, then any field on top of it (or of the club's rules when no preset is named). */
export const rulesPatch = clubRulesSchema.omit({ preset: true }).partial().extend({ preset: presetNameSchema.optional() }).strict()

export const standingPatch = z.object({
  status: z.enum(STATUSES, { error: (issue) => `unknown status ${JSON.stringify(issue.input)}: one of ${STATUSES.join(', ')}` }).optional(),
  reason: z.string().trim().max(500).nullable().optional(),
  birthDate: calendarDay.nullable().optional(),
  memberSince: calendarDay.nullable().optional(),
  validUntil: calendarDay.nullable().optional(),
  /** The staff member recording it is the caller; the document's number is never taken. */
  identityCheck: z.object({ document: z.enum(DOCUMENT_KINDS), at: isoTimestamp.optional() }).strict().nullable().optional(),
  monthlyAllowanceGrams: z.number().positive().max(MAX_CAP_GRAMS).multipleOf(0.001, 'at most 3 decimals').nullable().optional(),
}).strict()

const periodQuotaSchema = z.object({
  period: z.enum(['day', 'month', 'year']),
  id: z.string().describe('The club day (YYYY-MM-DD), month (YYYY-MM) or year (YYYY)'),
  used: z.number(),
  reserved: z.number().describe('Grams of orders placed, not yet handed over'),
  limit: z.number(),
  remaining: z.number(),
})

export const quotaSchema = z.object({
  memberId: z.string(),
  day: z.string(),
  status: z.enum(STATUSES),
  young: z.boolean(),
  thcCeilingPercent: z.number().nullable(),
  periods: z.array(periodQuotaSchema).describe('Each period with a cap in force for this member, in grams'),
}).meta({ id: 'MemberQuota' })

export { standingSchema }
