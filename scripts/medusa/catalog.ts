// The project's demo data (shared/design/decisions.md, section 3) as Medusa fixtures: the same clubs, catalog,
// stock, staff and members as the embedded backend's seed (src/commerce/demo.ts, src/tenants/demo.ts).
import { DEMO_CLUBS } from '../../src/commerce/demo.ts'
import { DEMO_PASSWORD as PASSWORD, demoMembers, demoTenants } from '../../src/tenants/demo.ts'

export const TENANT_IDS = ['club-norte', 'club-sur'] as const
export type TenantId = typeof TENANT_IDS[number]

export const DEMO_PASSWORD = PASSWORD
export const CURRENCY = 'ars'
export const COUNTRY = 'ar'

export interface VariantSpec {
  title: string
  sku: string
  /** Whole ARS. */
  price: number
  /** Stocked at the club's location. */
  stock: number
}

export interface ProductSpec {
  handle: string
  title: string
  description: string
  option: string
  variants: VariantSpec[]
}

export interface ClubSpec {
  name: string
  /** The demo's stable id of the club's stock location, kept as its name: Medusa makes up the id itself. */
  stockLocationName: string
  address: { address_1: string, city: string, postal_code: string }
  products: ProductSpec[]
}

export const SHIPPING_OPTIONS = [
  { name: 'pickup', amount: 0, label: 'Retiro en el club', code: 'pickup' },
  { name: 'delivery', amount: 1500, label: 'Envío a domicilio', code: 'delivery' },
] as const
export type ShippingOptionName = typeof SHIPPING_OPTIONS[number]['name']

function club (tenantId: TenantId): ClubSpec {
  const tenant = demoTenants.find((t) => t.id === tenantId)
  const demo = DEMO_CLUBS.find((c) => c.tenantId === tenantId)
  if (!tenant?.commerce || !demo) throw new Error(`no demo data for ${tenantId}`)
  return {
    name: tenant.name,
    stockLocationName: tenant.commerce.stockLocationId,
    address: { address_1: demo.address.address_1 ?? '', city: demo.address.city ?? '', postal_code: demo.address.postal_code ?? '' },
    // Handles are unique across a Medusa server, so they carry the club's short name (as the embedded seed's do).
    products: demo.products.map((p) => ({ handle: `${demo.short}-${p.key}`, title: p.title, description: p.description, option: p.option, variants: p.variants })),
  }
}

export const CLUBS: Record<TenantId, ClubSpec> = { 'club-norte': club('club-norte'), 'club-sur': club('club-sur') }

export interface CustomerSpec {
  email: string
  first_name: string
  last_name: string
  /** The first club is the one whose publishable key registers the customer. */
  clubs: [TenantId, ...TenantId[]]
}

export const CUSTOMERS: CustomerSpec[] = demoMembers.map(({ email, firstName, lastName, tenants: [first, ...rest] }) => ({
  email,
  first_name: firstName,
  last_name: lastName,
  clubs: [first, ...rest],
}))
