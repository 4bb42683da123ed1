import { provisionCommerce } from '../club/provision.ts'
import { DEMO_PASSWORD, demoClubSpecs, demoMembers, demoStaff, demoTenants } from '../tenants/demo.ts'
import { clubSetupIds } from '../tenants/setup-ids.ts'
import { embeddedSetup } from './provision.ts'
import type { CommerceContext } from './services/context.ts'
import { nowIso } from './services/context.ts'
import { createIdentity, saveCustomer, saveUser } from './services/accounts.ts'
import { buildProduct, saveProduct } from './services/catalog.ts'
import { createProductBody } from './requests.ts'

// The demo clubs' commerce data with the stable ids of src/tenants/demo.ts. The
// clubs' setup is provisioned as any club's is (src/club/provision.ts); the catalog and people are the demo's.
// Every step creates only what is missing, so seeding twice (or from two processes) changes nothing.

// grams per unit, THC and CBD percent: a flower's variants count toward the member's caps (docs/dispensing.md);
// seeds, soil and tools carry none and count toward nothing.
interface DemoVariant { title: string, sku: string, price: number, stock: number, grams?: number }
interface DemoProduct { key: string, title: string, description: string, option: string, variants: DemoVariant[], thc?: number, cbd?: number }
interface DemoClub { tenantId: string, short: string, products: DemoProduct[] }

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

const [firstName, lastName] = [(name: string) => name.split(' ')[0] ?? name, (name: string) => name.split(' ').slice(1).join(' ') || null]

async function seedClub (ctx: CommerceContext, club: DemoClub, now: string): Promise<void> {
  const tenant = demoTenants.find((t) => t.id === club.tenantId)
  const spec = demoClubSpecs.find((c) => c.id === club.tenantId)
  if (!tenant?.commerce || !spec) throw new Error(`demo tenant ${club.tenantId} has no commerce settings`)
  // The demo's service login is the club's admin (a person of the demo), not a service user.
  const { settings } = await provisionCommerce({ ...embeddedSetup(ctx), serviceLogin: async () => tenant.commerce as NonNullable<typeof tenant.commerce> }, spec)
  const { salesChannelId, stockLocationId } = settings
  for (const p of club.products) {
    const id = demoIds.product(club.short, p.key)
    if (await ctx.store.get('product', id)) continue
    const built = buildProduct(createProductBody.parse({
      title: p.title,
      handle: `${club.short}-${p.key}`,
      description: p.description,
      status: 'published',
      sales_channels: [{ id: salesChannelId }],
      options: [{ title: p.option, values: p.variants.map((v) => v.title) }],
      variants: p.variants.map((v) => ({
        title: v.title,
        sku: v.sku,
        options: { [p.option]: v.title },
        prices: [{ currency_code: 'ars', amount: v.price }],
        ...(v.grams ? { weight: v.grams, metadata: { thc: p.thc ?? null, cbd: p.cbd ?? null } } : {}),
      })),
    }), now, { product: id })
    if (!await saveProduct(ctx, built)) continue
    for (const [i, v] of built.product.variants.entries()) {
      const stock = p.variants[i]?.stock ?? 0
      if (v.inventory_item_id) await ctx.store.setStocked(v.inventory_item_id, stockLocationId, stock, `ilev_${v.inventory_item_id.slice('iitem_'.length)}`, now)
    }
  }
}

async function seedPeople (ctx: CommerceContext, now: string): Promise<void> {
  const stamps = { created_at: now, updated_at: now }
  const staff = demoStaff.flatMap((s) => s.role === 'member' ? [] : [{ ...s, role: s.role }])
  await Promise.all(staff.map(async (s) => {
    await saveUser(ctx, { id: s.id, email: s.email, first_name: firstName(s.name), last_name: lastName(s.name), role: s.role, tenants: s.tenants, metadata: null, ...stamps })
    await createIdentity(ctx, 'user', s.email, DEMO_PASSWORD, s.id)
  }))
  await Promise.all(demoMembers.map(async (m) => {
    await saveCustomer(ctx, { id: m.id, email: m.email, first_name: m.firstName, last_name: m.lastName, phone: null, has_account: true, metadata: { clubs: [...m.tenants] }, ...stamps })
    await createIdentity(ctx, 'customer', m.email, DEMO_PASSWORD, m.id)
  }))
}

export async function seedDemo (ctx: CommerceContext): Promise<void> {
  const now = nowIso()
  for (const club of DEMO_CLUBS) await seedClub(ctx, club, now)
  await seedPeople(ctx, now)
}
