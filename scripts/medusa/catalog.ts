// The project's demo data as Medusa fixtures: the same clubs, catalog,
// stock, staff and members as the embedded backend's seed (src/embedded-commerce/demo.ts, src/tenants/demo.ts).
import { DEMO_CLUBS } from '../../src/embedded-commerce/demo.ts'
import type { ClubSpec } from '../../src/tenants/spec.ts'
import { DEMO_PASSWORD as PASSWORD, demoClubSpecs, demoMembers } from '../../src/tenants/demo.ts'

export const TENANT_IDS = ['club-norte', 'club-sur'] as const
export type TenantId = typeof TENANT_IDS[number]

export const DEMO_PASSWORD = PASSWORD
export const CURRENCY = 'ars'

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

export interface DemoClubSpec {
  /** The club as provisioned (src/tenants/spec.ts): the same spec the embedded backend's demo uses. */
  club: ClubSpec
  products: ProductSpec[]
}

function club (tenantId: TenantId): DemoClubSpec {
  const spec = demoClubSpecs.find((t) => t.id === tenantId)
  const demo = DEMO_CLUBS.find((c) => c.tenantId === tenantId)
  if (!spec || !demo) throw new Error(`no demo data for ${tenantId}`)
  return {
    club: spec,
    // Handles are unique across a Medusa server, so they carry the club's short name (as the embedded seed's do).
    products: demo.products.map((
      p
    ) => ({ handle: `${demo.short}-${p.key}`, title: p.title, description: p.description, option: p.option, variants: p.variants })),
  }
}

export const CLUBS: Record<TenantId, DemoClubSpec> = { 'club-norte': club('club-norte'), 'club-sur': club('club-sur') }

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
