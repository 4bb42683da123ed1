import type { RegionDoc, StoredAddress } from '../model.ts'
import type { Totals } from '../calc.ts'

// Medusa's country records for the codes a club region may list.
const COUNTRIES: Record<string, { iso_3: string, num_code: string, name: string, display_name: string }> = {
  ar: { iso_3: 'arg', num_code: '032', name: 'ARGENTINA', display_name: 'Argentina' },
  uy: { iso_3: 'ury', num_code: '858', name: 'URUGUAY', display_name: 'Uruguay' },
  cl: { iso_3: 'chl', num_code: '152', name: 'CHILE', display_name: 'Chile' },
  py: { iso_3: 'pry', num_code: '600', name: 'PARAGUAY', display_name: 'Paraguay' },
  br: { iso_3: 'bra', num_code: '076', name: 'BRAZIL', display_name: 'Brazil' },
  es: { iso_3: 'esp', num_code: '724', name: 'SPAIN', display_name: 'Spain' },
  us: { iso_3: 'usa', num_code: '840', name: 'UNITED STATES', display_name: 'United States' },
}

function countryView (iso2: string, region: RegionDoc) {
  const c = COUNTRIES[iso2]
  return {
    iso_2: iso2,
    iso_3: c?.iso_3 ?? null,
    num_code: c?.num_code ?? null,
    name: c?.name ?? iso2.toUpperCase(),
    display_name: c?.display_name ?? iso2.toUpperCase(),
    region_id: region.id,
    metadata: null,
    created_at: region.created_at,
    updated_at: region.updated_at,
    deleted_at: null,
  }
}

export function regionView (region: RegionDoc) {
  return {
    id: region.id,
    name: region.name,
    currency_code: region.currency_code,
    automatic_taxes: region.automatic_taxes,
    metadata: region.metadata,
    created_at: region.created_at,
    updated_at: region.updated_at,
    deleted_at: null,
    countries: region.countries.map((c) => countryView(c, region)),
  }
}

const ADDRESS_FIELDS = [
  'id', 'first_name', 'last_name', 'company', 'address_1', 'address_2', 'city', 'postal_code', 'country_code', 'province', 'phone'
] as const

export function cartAddressView (address: StoredAddress | null) {
  if (!address) return null
  return Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, address[f]])) as Pick<StoredAddress, typeof ADDRESS_FIELDS[number]>
}

export function orderAddressView (address: StoredAddress | null, at: { created_at: string, updated_at: string }) {
  if (!address) return null
  return { ...cartAddressView(address), customer_id: null, metadata: null, created_at: at.created_at, updated_at: at.updated_at, deleted_at: null }
}

/** Every total field Medusa puts on a cart; taxes, discounts and credit lines are not used, so they are 0. */
export function cartTotalsView (t: Totals) {
  return {
    total: t.total,
    subtotal: t.total,
    tax_total: 0,
    discount_total: 0,
    discount_subtotal: 0,
    discount_tax_total: 0,
    original_total: t.total,
    original_tax_total: 0,
    item_total: t.item_total,
    item_subtotal: t.item_total,
    item_tax_total: 0,
    item_discount_total: 0,
    original_item_total: t.item_total,
    original_item_subtotal: t.item_total,
    original_item_tax_total: 0,
    shipping_total: t.shipping_total,
    shipping_subtotal: t.shipping_total,
    shipping_tax_total: 0,
    shipping_discount_total: 0,
    original_shipping_tax_total: 0,
    original_shipping_subtotal: t.shipping_total,
    original_shipping_total: t.shipping_total,
    credit_line_subtotal: 0,
    credit_line_tax_total: 0,
    credit_line_total: 0,
  }
}

export function orderTotalsView (t: Totals) {
  const { item_discount_total: _i, shipping_discount_total: _s, ...rest } = cartTotalsView(t)
  return { ...rest, original_subtotal: t.total }
}
