import { z } from 'zod'

// A club's dispensing rules, as data: caps per member per club day, calendar month and year, a stricter cap and a
// THC ceiling for young adults, delivery, standing requirements and how long the record is kept. Presets are the
// starting points named in docs/dispensing.md (where each number comes from); a club adjusts them field by field.

/** At most this many grams in any one cap: above it a number is a typing mistake, not a rule. */
export const MAX_CAP_GRAMS = 100_000
const grams = z.number().positive().max(MAX_CAP_GRAMS).multipleOf(0.001, 'at most 3 decimals').nullable()

const youngRulesSchema = z.object({
  /** A member under this age on the day of the dispensation is a young adult (KCanG: 21). */
  underAge: z.number().int().min(1).max(99),
  /** Replaces the monthly cap for them; null: the club's monthly cap. */
  monthlyGrams: grams,
  /** No product above this THC percent for them; null: no ceiling. */
  maxThcPercent: z.number().min(0).max(100).nullable(),
}).strict()

export const clubRulesSchema = z.object({
  /** The preset the rules started from (changing a field does not change it). */
  preset: z.string().min(1).max(40),
  dailyGrams: grams,
  monthlyGrams: grams,
  yearlyGrams: grams,
  young: youngRulesSchema.nullable(),
  /** No dispensation to a member known to be younger (their birth date on record). */
  minAge: z.number().int().min(1).max(99).nullable(),
  deliveryAllowed: z.boolean(),
  /** Days a member must have been a member before their first dispensation. */
  minMembershipDays: z.number().int().min(0).max(3650),
  /** New members start `pending` until staff record an identity check. */
  identityCheckFirst: z.boolean(),
  /** A member needs a `validUntil` (a registration such as REPROCANN) not yet past. */
  registrationRequired: z.boolean(),
  /** A member needs a personal monthly allowance (a signed consumption forecast, a prescription). */
  allowanceRequired: z.boolean(),
  /** Years the dispensing record is kept; older entries are removed by the daily job. */
  retentionYears: z.number().int().min(1).max(30),
}).strict()
export type ClubRules = z.infer<typeof clubRulesSchema>

const PRESET_NAMES = ['none', 'de-kcang', 'uy-club', 'ar-reprocann', 'es-csc'] as const
export type PresetName = typeof PRESET_NAMES[number]

const base: ClubRules = {
  preset: 'none',
  dailyGrams: null,
  monthlyGrams: null,
  yearlyGrams: null,
  young: null,
  minAge: null,
  deliveryAllowed: true,
  minMembershipDays: 0,
  identityCheckFirst: false,
  registrationRequired: false,
  allowanceRequired: false,
  retentionYears: 5,
}

/** The shipped presets (docs/dispensing.md, "Presets", cites the law behind each number). */
export const PRESETS: Record<PresetName, ClubRules> = {
  none: base,
  'de-kcang': {
    ...base,
    preset: 'de-kcang',
    dailyGrams: 25,
    monthlyGrams: 50,
    young: { underAge: 21, monthlyGrams: 30, maxThcPercent: 10 },
    minAge: 18,
    deliveryAllowed: false,
    identityCheckFirst: true,
    retentionYears: 5,
  },
  'uy-club': { ...base, preset: 'uy-club', yearlyGrams: 480, minAge: 18, deliveryAllowed: false },
  'ar-reprocann': { ...base, preset: 'ar-reprocann', minAge: 18, registrationRequired: true },
  'es-csc': { ...base, preset: 'es-csc', minAge: 18, deliveryAllowed: false, allowanceRequired: true },
}

/** A club made before rules existed has none: it behaves as before. */
export const rulesOf = (tenant: { rules?: ClubRules | undefined }): ClubRules => tenant.rules ?? PRESETS.none

export const presetNameSchema = z.enum(PRESET_NAMES, { error: (issue) => `unknown preset ${JSON.stringify(issue.input)}: one of ${PRESET_NAMES.join(', ')}` })
