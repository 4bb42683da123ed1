import { clubRecord, clubSpecSchema, type ClubSpec } from './spec.ts'
import { clubSetupIds } from './setup-ids.ts'
import type { CommerceSettings, Staff, Tenant } from './model.ts'

// Stable ids, so that the README, the simulator and tests can name them.
export const DEMO_PASSWORD = 'demo-password'

/** The demo clubs as an operator would describe them (`npm run club -- create` takes the same). */
export const demoClubSpecs: ClubSpec[] = [
  clubSpecSchema.parse({
    id: 'club-norte',
    name: 'Club Norte',
    pickup: { address: 'Av. Cabildo 1200, Buenos Aires', hours: 'Lunes a viernes de 14 a 20' },
    address: { address_1: 'Av. Cabildo 1200', city: 'Buenos Aires', postal_code: 'C1426', province: 'Buenos Aires' },
    deliveryPrice: 1500,
  }),
  clubSpecSchema.parse({
    id: 'club-sur',
    name: 'Club Sur',
    pickup: { address: 'Av. Mitre 800, Avellaneda', hours: 'Martes a sábado de 12 a 19' },
    address: { address_1: 'Av. Mitre 800', city: 'Avellaneda', postal_code: 'B1870', province: 'Buenos Aires' },
    deliveryPrice: 1500,
  }),
]

/** On the embedded backend, the service calls each demo club's backend as that club's admin. */
function demoCommerce (spec: ClubSpec): CommerceSettings {
  const ids = clubSetupIds(spec.id)
  return {
    publishableKey: ids.publishableKey,
    regionId: ids.region,
    salesChannelId: ids.salesChannel,
    stockLocationId: ids.stockLocation,
    adminEmail: `admin@${spec.id}.test`,
    adminPassword: DEMO_PASSWORD,
  }
}

export const demoTenants: Tenant[] = demoClubSpecs.map((spec) => clubRecord(spec, demoCommerce(spec)))

export const demoStaff: Staff[] = [
  { id: 'user_admin_norte', email: 'admin@club-norte.test', name: 'Admin Norte', role: 'admin', tenants: ['club-norte'] },
  { id: 'user_grower_norte', email: 'grower@club-norte.test', name: 'Grower Norte', role: 'grower', tenants: ['club-norte'] },
  { id: 'user_admin_sur', email: 'admin@club-sur.test', name: 'Admin Sur', role: 'admin', tenants: ['club-sur'] },
]

export const demoMembers = [
  { id: 'cus_ana', email: 'ana@example.com', firstName: 'Ana', lastName: 'Pereyra', tenants: ['club-norte', 'club-sur'] },
  { id: 'cus_bruno', email: 'bruno@example.com', firstName: 'Bruno', lastName: 'Díaz', tenants: ['club-norte'] },
] as const
