import { DEFAULT_TIME_ZONE, type Staff, type Tenant } from './model.ts'

// decisions.md section 3: stable ids, so that the README, the simulator and tests can name them.
export const DEMO_PASSWORD = 'demo-password'

export const demoTenants: Tenant[] = [
  {
    id: 'club-norte',
    name: 'Club Norte',
    locale: 'es',
    timeZone: DEFAULT_TIME_ZONE,
    pickup: { address: 'Av. Cabildo 1200, Buenos Aires', hours: 'Lunes a viernes de 14 a 20' },
    currency: 'ARS',
    plan: { maxActiveCrops: 50 },
    commerce: {
      publishableKey: 'pk_club_norte',
      regionId: 'reg_club_norte',
      salesChannelId: 'sc_club_norte',
      stockLocationId: 'sloc_norte',
      adminEmail: 'admin@club-norte.test',
      adminPassword: DEMO_PASSWORD,
    },
  },
  {
    id: 'club-sur',
    name: 'Club Sur',
    locale: 'es',
    timeZone: DEFAULT_TIME_ZONE,
    pickup: { address: 'Av. Mitre 800, Avellaneda', hours: 'Martes a sábado de 12 a 19' },
    currency: 'ARS',
    plan: { maxActiveCrops: 50 },
    commerce: {
      publishableKey: 'pk_club_sur',
      regionId: 'reg_club_sur',
      salesChannelId: 'sc_club_sur',
      stockLocationId: 'sloc_sur',
      adminEmail: 'admin@club-sur.test',
      adminPassword: DEMO_PASSWORD,
    },
  },
]

export const demoStaff: Staff[] = [
  { id: 'user_admin_norte', email: 'admin@club-norte.test', name: 'Admin Norte', role: 'admin', tenants: ['club-norte'] },
  { id: 'user_grower_norte', email: 'grower@club-norte.test', name: 'Grower Norte', role: 'grower', tenants: ['club-norte'] },
  { id: 'user_admin_sur', email: 'admin@club-sur.test', name: 'Admin Sur', role: 'admin', tenants: ['club-sur'] },
]

export const demoMembers = [
  { id: 'cus_ana', email: 'ana@example.com', firstName: 'Ana', lastName: 'Pereyra', tenants: ['club-norte', 'club-sur'] },
  { id: 'cus_bruno', email: 'bruno@example.com', firstName: 'Bruno', lastName: 'Díaz', tenants: ['club-norte'] },
] as const
