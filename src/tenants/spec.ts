import { z } from 'zod'
import { PRESETS, presetNameSchema } from './rules.ts'
import { clubNameSchema, LOCALES, pickupSchema, TENANT_ID, timeZoneSchema, type CommerceSettings, type Tenant } from './model.ts'

// What an operator says a club is: its record here and its commerce setup upstream follow from it.

export const clubSpecSchema = z.object({
  id: z.string().regex(TENANT_ID, 'lower-case letters, digits and dashes, 2 to 63, starting with a letter or digit'),
  name: clubNameSchema,
  locale: z.enum(LOCALES).default('es'),
  timeZone: timeZoneSchema.default('America/Argentina/Buenos_Aires'),
  currency: z.string().regex(/^[A-Za-z]{3}$/, 'a 3-letter ISO 4217 code').transform((c) => c.toUpperCase()).default('ARS'),
  /** Where the club sells and ships: its region's country (ISO 3166-1 alpha-2). */
  country: z.string().regex(/^[A-Za-z]{2}$/, 'a 2-letter ISO 3166 code').transform((c) => c.toLowerCase()).default('ar'),
  maxActiveCrops: z.number().int().min(0).max(100_000).default(50),
  pickup: pickupSchema.optional(),
  /** The stock location's address; its first line defaults to the pickup address. */
  address: z.object({
    address_1: z.string().trim().min(1).max(200).optional(),
    city: z.string().trim().max(100).optional(),
    postal_code: z.string().trim().max(20).optional(),
    province: z.string().trim().max(100).optional(),
  }).default({}),
  /** Price of the `delivery` shipping option in whole units of the currency (`pickup` is free). */
  deliveryPrice: z.number().int().min(0).max(10_000_000).default(0),
  /** The dispensing rules' preset (src/tenants/rules.ts); absent: `none` on create, unchanged on update. */
  rules: presetNameSchema.optional(),
})
export type ClubSpec = z.output<typeof clubSpecSchema>
export type ClubSpecInput = z.input<typeof clubSpecSchema>

const SHIPPING_OPTION_NAMES = ['pickup', 'delivery'] as const
export type ShippingOptionName = typeof SHIPPING_OPTION_NAMES[number]

const LABELS: Record<Tenant['locale'], Record<ShippingOptionName, string>> = {
  es: { pickup: 'Retiro en el club', delivery: 'Envío a domicilio' },
  en: { pickup: 'Pickup at the club', delivery: 'Home delivery' },
}

/** The two shipping options every club offers: `pickup` (free) and `delivery`. */
export function shippingOptionsOf (spec: ClubSpec): Array<{ name: ShippingOptionName, label: string, amount: number }> {
  return SHIPPING_OPTION_NAMES.map((name) => ({ name, label: LABELS[spec.locale][name], amount: name === 'pickup' ? 0 : spec.deliveryPrice }))
}

/** The stock location's address in Medusa's form. */
export function locationAddress (spec: ClubSpec): {
  address_1: string, city: string | null, postal_code: string | null, province: string | null, country_code: string
} {
  return {
    address_1: spec.address.address_1 ?? spec.pickup?.address ?? spec.name,
    city: spec.address.city || null,
    postal_code: spec.address.postal_code || null,
    province: spec.address.province || null,
    country_code: spec.country,
  }
}

/** The tenant record of a club: the spec's settings and where its commerce side is. */
export function clubRecord (spec: ClubSpec, commerce: CommerceSettings): Tenant {
  return {
    id: spec.id,
    name: spec.name,
    locale: spec.locale,
    timeZone: spec.timeZone,
    currency: spec.currency,
    country: spec.country,
    plan: { maxActiveCrops: spec.maxActiveCrops },
    ...(spec.pickup ? { pickup: spec.pickup } : {}),
    commerce,
    ...(spec.rules ? { rules: PRESETS[spec.rules] } : {}),
  }
}

/** The spec a stored club was made from, as far as its record keeps it (addresses are the backend's). */
export function specOf (tenant: Tenant): ClubSpecInput {
  return {
    id: tenant.id,
    name: tenant.name,
    locale: tenant.locale,
    timeZone: tenant.timeZone,
    currency: tenant.currency,
    ...(tenant.country ? { country: tenant.country } : {}),
    maxActiveCrops: tenant.plan.maxActiveCrops,
    ...(tenant.pickup ? { pickup: tenant.pickup } : {}),
  }
}

/** A country's English name (Argentina for `ar`): regions are named after their country. */
export function countryName (code: string): string {
  return new Intl.DisplayNames(['en'], { type: 'region' }).of(code.toUpperCase()) ?? code.toUpperCase()
}
