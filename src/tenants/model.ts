import { z } from 'zod'
import { ROLES } from './roles.ts'
import { clubRulesSchema } from './rules.ts'
import { canonicalTimeZone } from './time.ts'

/** How a club reaches its commerce backend; baseUrl falls back to COMMERCE_URL or the embedded one. */
export const commerceSettingsSchema = z.object({
  baseUrl: z.url().optional(),
  publishableKey: z.string().min(1),
  regionId: z.string().min(1),
  salesChannelId: z.string().min(1),
  stockLocationId: z.string().min(1),
  adminEmail: z.string().min(1),
  adminPassword: z.string().min(1),
})
export type CommerceSettings = z.infer<typeof commerceSettingsSchema>

export const TENANT_ID = /^[a-z0-9][a-z0-9-]{1,62}$/
export const LOCALES = ['es', 'en'] as const
/** Clubs made before time zones were kept (and the demo) are in Buenos Aires, where the product started. */
export const DEFAULT_TIME_ZONE = 'America/Argentina/Buenos_Aires'

/** An IANA time zone name, stored in its canonical spelling. */
export const timeZoneSchema = z.string().trim().min(1).max(64).transform((name, ctx) => {
  const canonical = canonicalTimeZone(name)
  if (!canonical) {
    ctx.addIssue({ code: 'custom', message: `${name} is not an IANA time zone (e.g. America/Argentina/Buenos_Aires)` })
    return z.NEVER
  }
  return canonical
})

/** Where and when members pick up their orders: shown by the bot. */
export const pickupSchema = z.object({
  address: z.string().trim().min(1).max(200),
  hours: z.string().trim().min(1).max(200),
})

/** The chat's updates outside the provider's 24-hour window, each sent as the template of this name by default. */
const CHAT_TEMPLATE_KINDS = [
  'order_ready_pickup', 'order_shipped', 'order_canceled', 'order_completed', 'appointment_reminder', 'task_overdue', 'batch_recall', 'membership_expiring'
] as const
export type ChatTemplateKind = typeof CHAT_TEMPLATE_KINDS[number]
/** A club's own template name and language for some of them (docs/chat.md, "Order updates"). */
export const chatTemplatesSchema = z.partialRecord(z.enum(CHAT_TEMPLATE_KINDS), z.object({
  name: z.string().regex(/^[a-z0-9_]{1,512}$/, 'lower-case letters, digits and _'),
  language: z.string().regex(/^[a-z]{2}(_[A-Z]{2})?$/, 'a language code such as es or es_AR').optional(),
}))

// Control characters (line breaks included), format characters (direction marks and overrides, zero-width
// joiners) and line or paragraph separators: a club's name is shown on one line, to every new phone.
const NOT_IN_A_NAME = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u

/** A club's name as its admins or the operator write it: one line, no control or direction characters. */
export const clubNameSchema = z.string().trim().min(1).max(100)
  .refine((name) => !NOT_IN_A_NAME.test(name), 'must be one line, without control or direction characters')

/** What two club names must not share: the same name, whatever the case, spacing or Unicode normalisation. */
export const clubNameKey = (name: string): string => name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()

export const tenantSchema = z.object({
  id: z.string().regex(TENANT_ID),
  name: z.string().min(1),
  locale: z.enum(LOCALES),
  timeZone: timeZoneSchema.default(DEFAULT_TIME_ZONE),
  currency: z.string().length(3),
  /** The country the club sells in (ISO 3166 alpha-2), as provisioned. */
  country: z.string().length(2).optional(),
  plan: z.object({ maxActiveCrops: z.number().int().min(0) }),
  pickup: pickupSchema.optional(),
  chatTemplates: chatTemplatesSchema.optional(),
  commerce: commerceSettingsSchema.optional(),
  /** How it dispenses (src/tenants/rules.ts); absent: the `none` preset, as clubs made before rules. */
  rules: clubRulesSchema.optional(),
})
export type Tenant = z.infer<typeof tenantSchema>
/** A tenant as callers write it: the time zone may be left to its default. */
export type TenantInput = z.input<typeof tenantSchema>

/** Staff directory entry: who a staff login is and where. Passwords live only in the commerce backend. */
export const staffSchema = z.object({
  id: z.string().min(1),
  email: z.email(),
  name: z.string().min(1),
  role: z.enum(ROLES),
  tenants: z.array(z.string()).min(1),
})
export type Staff = z.infer<typeof staffSchema>
