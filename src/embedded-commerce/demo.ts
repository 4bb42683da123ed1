import { provisionCommerce } from '../club/provision.ts'
import { DEMO_CLUBS, DEMO_PASSWORD, demoClubSpecs, demoIds, demoMembers, demoStaff, demoTenants, type DemoClub } from '../tenants/demo.ts'
import { embeddedSetup } from './provision.ts'
import type { CommerceContext } from './services/context.ts'
import { nowIso } from './services/context.ts'
import { createIdentity, saveCustomer, saveUser } from './services/accounts.ts'
import { buildProduct, saveProduct } from './services/catalog.ts'
import { createProductBody } from './requests.ts'

// The demo clubs' commerce data with the stable ids of src/tenants/demo.ts. The
// clubs' setup is provisioned as any club's is (src/club/provision.ts); the catalog and people are the demo's.
// Every step creates only what is missing, so seeding twice (or from two processes) changes nothing.

// The demo catalog (DEMO_CLUBS) and its stable ids (demoIds) are data of src/tenants/demo.ts.
export { DEMO_CLUBS, demoIds }

const [firstName, lastName] = [(name: string) => name.split(' ')[0] ?? name, (name: string) => name.split(' ').slice(1).join(' ') || null]

async function seedClub (ctx: CommerceContext, club: DemoClub, now: string): Promise<void> {
  const tenant = demoTenants.find((t) => t.id === club.tenantId)
  const spec = demoClubSpecs.find((c) => c.id === club.tenantId)
  if (!tenant?.commerce || !spec) throw new Error(`demo tenant ${club.tenantId} has no commerce settings`)
  // The demo's service login is the club's admin (a person of the demo), not a service user.
  const { settings } = await provisionCommerce(
    { ...embeddedSetup(ctx), serviceLogin: async () => tenant.commerce as NonNullable<typeof tenant.commerce> }, spec
  )
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
      if (v.inventory_item_id) {
        await ctx.store.setStocked(
          v.inventory_item_id, stockLocationId, stock, `ilev_${v.inventory_item_id.slice('iitem_'.length)}`, now
        )
      }
    }
  }
}

async function seedPeople (ctx: CommerceContext, now: string): Promise<void> {
  const stamps = { created_at: now, updated_at: now }
  const staff = demoStaff.flatMap((s) => s.role === 'member' ? [] : [{ ...s, role: s.role }])
  await Promise.all(staff.map(async (s) => {
    await saveUser(ctx, {
      id: s.id, email: s.email, first_name: firstName(s.name), last_name: lastName(s.name), role: s.role, tenants: s.tenants, metadata: null, ...stamps
    })
    await createIdentity(ctx, 'user', s.email, DEMO_PASSWORD, s.id)
  }))
  await Promise.all(demoMembers.map(async (m) => {
    await saveCustomer(ctx, {
      id: m.id,
      email: m.email,
      first_name: m.firstName,
      last_name: m.lastName,
      phone: m.phone,
      has_account: true,
      metadata: { clubs: [...m.tenants] },
      ...stamps
    })
    await createIdentity(ctx, 'customer', m.email, DEMO_PASSWORD, m.id)
  }))
}

export async function seedDemo (ctx: CommerceContext): Promise<void> {
  const now = nowIso()
  for (const club of DEMO_CLUBS) await seedClub(ctx, club, now)
  await seedPeople(ctx, now)
}
