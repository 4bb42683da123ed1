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
    // Club Sur shows the club rules at work (25 g a day, 50 g a month, under 21: 30 g and 10 % THC, pickup only).
    rules: 'de-kcang',
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

export interface DemoMember {
  id: string
  email: string
  firstName: string
  lastName: string
  /** E.164; staff make a chat link code only for a member with a phone on record. */
  phone: string | null
  tenants: readonly [string, ...string[]]
}

export const demoMembers = [
  { id: 'cus_ana', email: 'ana@example.com', firstName: 'Ana', lastName: 'Pereyra', phone: null, tenants: ['club-norte', 'club-sur'] },
  { id: 'cus_bruno', email: 'bruno@example.com', firstName: 'Bruno', lastName: 'Díaz', phone: null, tenants: ['club-norte'] },
  { id: 'cus_lucia', email: 'lucia@example.com', firstName: 'Lucía', lastName: 'Fernández', phone: '+5491140000001', tenants: ['club-sur'] },
  { id: 'cus_mateo', email: 'mateo@example.com', firstName: 'Mateo', lastName: 'Sosa', phone: '+5491140000002', tenants: ['club-sur'] },
  { id: 'cus_olga', email: 'olga@example.com', firstName: 'Olga', lastName: 'Benítez', phone: '+5491140000003', tenants: ['club-sur'] },
] as const satisfies readonly DemoMember[]

/**
 * Club Sur's demo members under its rules (src/dispensing/demo.ts seeds them): each with the
 * identity check the preset asks for, recorded by Admin Sur. `years` is the age the seed gives them; `dispensed`
 * is what the record holds for them this month, one handover a club day from the 1st on (the daily cap allows no
 * more than 25 g at once): Lucía's 25 g and 20 g leave her 5 g this month.
 */
export const demoStandings = [
  {
    memberId: 'cus_lucia',
    tenantId: 'club-sur',
    years: 34,
    status: 'active',
    reason: null,
    dispensed: [[{ sku: 'SUR-CRITICAL-5', quantity: 5 }], [{ sku: 'SUR-CRITICAL-10', quantity: 2 }]],
  },
  { memberId: 'cus_mateo', tenantId: 'club-sur', years: 19, status: 'active', reason: null, dispensed: [] },
  { memberId: 'cus_olga', tenantId: 'club-sur', years: 52, status: 'lapsed', reason: 'membership fee not renewed', dispensed: [] },
] as const satisfies ReadonlyArray<{
  memberId: string
  tenantId: string
  years: number
  status: 'active' | 'lapsed'
  reason: string | null
  dispensed: ReadonlyArray<ReadonlyArray<{ sku: string, quantity: number }>>
}>

// grams per unit, THC and CBD percent: a flower's variants count toward the member's caps (docs/dispensing.md);
// seeds, soil and tools carry none and count toward nothing.
interface DemoVariant { title: string, sku: string, price: number, stock: number, grams?: number }
interface DemoProduct { key: string, title: string, description: string, option: string, variants: DemoVariant[], thc?: number, cbd?: number }
export interface DemoClub { tenantId: string, short: string, products: DemoProduct[] }

const single = (key: string, title: string, description: string, sku: string, price: number, stock: number): DemoProduct =>
  ({ key, title, description, option: 'Presentación', variants: [{ title: 'Única', sku, price, stock }] })

export const DEMO_CLUBS: DemoClub[] = [
  {
    tenantId: 'club-norte',
    short: 'norte',
    products: [
      {
        key: 'flores-amnesia',
        title: 'Flores Amnesia Haze',
        description: 'Flores curadas de cosecha propia, por gramo.',
        option: 'Peso',
        thc: 18,
        cbd: 0.5,
        variants: [
          { title: '5 g', sku: 'NORTE-AMNESIA-5', price: 25000, stock: 60, grams: 5 },
          { title: '10 g', sku: 'NORTE-AMNESIA-10', price: 45000, stock: 40, grams: 10 },
        ],
      },
      {
        key: 'semillas-gorilla',
        title: 'Semillas feminizadas Gorilla Glue',
        description: 'Semillas feminizadas de banco nacional.',
        option: 'Paquete',
        variants: [
          { title: 'x3', sku: 'NORTE-GG-3', price: 18000, stock: 30 },
          { title: 'x5', sku: 'NORTE-GG-5', price: 27000, stock: 20 },
        ],
      },
      single('aceite-cbd', 'Aceite CBD 10% 30 ml', 'Aceite de espectro completo, gotero de 30 ml.', 'NORTE-ACEITE-30', 32000, 50),
      single('sustrato', 'Sustrato orgánico 25 L', 'Sustrato con perlita y humus.', 'NORTE-SUSTRATO', 9500, 80),
      single('picador', 'Picador metálico', 'Picador de aluminio de 4 partes.', 'NORTE-PICADOR', 6500, 100),
    ],
  },
  {
    tenantId: 'club-sur',
    short: 'sur',
    products: [
      {
        key: 'flores-critical',
        title: 'Flores Critical Kush',
        description: 'Flores curadas de cosecha propia, por gramo.',
        option: 'Peso',
        thc: 19,
        cbd: 0.8,
        variants: [
          { title: '5 g', sku: 'SUR-CRITICAL-5', price: 22000, stock: 60, grams: 5 },
          { title: '10 g', sku: 'SUR-CRITICAL-10', price: 40000, stock: 30, grams: 10 },
        ],
      },
      {
        key: 'semillas-northern',
        title: 'Semillas autoflorecientes Northern Lights',
        description: 'Semillas autoflorecientes, ciclo corto.',
        option: 'Paquete',
        variants: [
          { title: 'x3', sku: 'SUR-NL-3', price: 15000, stock: 25 },
          { title: 'x5', sku: 'SUR-NL-5', price: 23000, stock: 20 },
        ],
      },
      {
        // under 10 % THC: what a member under 21 may receive under de-kcang
        key: 'flores-harlequin',
        title: 'Flores Harlequin',
        description: 'Flores curadas, alto CBD y poco THC, por gramo.',
        option: 'Peso',
        thc: 6,
        cbd: 9,
        variants: [{ title: '5 g', sku: 'SUR-HARLEQUIN-5', price: 18000, stock: 40, grams: 5 }],
      },
      single('crema-calendula', 'Crema de caléndula y CBD 50 g', 'Crema artesanal para uso tópico.', 'SUR-CREMA-50', 8000, 40),
      single('humus', 'Humus de lombriz 5 kg', 'Abono orgánico.', 'SUR-HUMUS', 5200, 70),
      single('papelillos', 'Papelillos de cáñamo', 'Librito de 50 hojas.', 'SUR-PAPELILLOS', 1500, 100),
    ],
  },
]

/** Stable ids of a demo product's parts, so that tests and docs can name them. */
export const demoIds = {
  product: (club: string, key: string) => `prod_${club}_${key.replace(/-/g, '_')}`,
  shippingOption: (tenantId: string, name: 'pickup' | 'delivery') => clubSetupIds(tenantId).shippingOption(name),
}
