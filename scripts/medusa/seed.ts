import { provisionCommerce } from '../../src/club/provision.ts'
import { medusaSetup } from '../../src/club/medusa-setup.ts'
import type { ShippingOptionName } from '../../src/tenants/spec.ts'
import { CLUBS, CURRENCY, CUSTOMERS, DEMO_PASSWORD, type CustomerSpec, type ProductSpec, type TenantId } from './catalog.ts'
import { demoStaff } from '../../src/tenants/demo.ts'
import type { Staff } from '../../src/tenants/model.ts'
import { login, MedusaClient } from './http.ts'
import type { Log } from './steps.ts'

/** One club's entry in the file named by COMMERCE_TENANTS_FILE. */
export interface TenantSettings {
  baseUrl: string
  publishableKey: string
  regionId: string
  salesChannelId: string
  stockLocationId: string
  adminEmail: string
  adminPassword: string
}

export type Settings = Record<TenantId, TenantSettings>

export interface VariantFixture {
  id: string
  title: string
  sku: string
  price: number
  inventoryItemId: string
}

export interface ProductFixture {
  id: string
  handle: string
  title: string
  variants: VariantFixture[]
}

export interface ClubFixture {
  regionId: string
  stockLocationId: string
  fulfillmentSetId: string
  serviceZoneId: string
  salesChannelId: string
  publishableKey: string
  shippingProfileId: string
  shippingOptions: Record<ShippingOptionName, string>
  products: ProductFixture[]
}

export interface CustomerFixture {
  id: string
  email: string
  clubs: TenantId[]
}

export interface Fixtures {
  baseUrl: string
  regionId: string
  currencyCode: string
  adminEmail: string
  customerPassword: string
  clubs: Record<TenantId, ClubFixture>
  customers: CustomerFixture[]
}

export interface AdminCredentials {
  email: string
  password: string
}

interface Id { id: string }

interface CreatedVariant extends Id {
  sku: string
  inventory_items: Array<{ inventory_item_id: string }>
}

async function createProduct (
  admin: MedusaClient, spec: ProductSpec, club: { salesChannelId: string, shippingProfileId: string, stockLocationId: string }
): Promise<ProductFixture> {
  const { product } = await admin.post<{ product: Id }>('/admin/products', {
    title: spec.title,
    handle: spec.handle,
    description: spec.description,
    status: 'published',
    shipping_profile_id: club.shippingProfileId,
    sales_channels: [{ id: club.salesChannelId }],
    options: [{ title: spec.option, values: spec.variants.map((v) => v.title) }],
    variants: spec.variants.map((v) => ({
      title: v.title,
      sku: v.sku,
      manage_inventory: true,
      options: { [spec.option]: v.title },
      prices: [{ currency_code: CURRENCY, amount: v.price }],
    })),
  })
  const { product: read } = await admin.get<{ product: { variants: CreatedVariant[] } }>(
    `/admin/products/${product.id}?fields=id,variants.id,variants.sku,variants.inventory_items.inventory_item_id`
  )
  const variants: VariantFixture[] = []
  for (const v of spec.variants) {
    const created = read.variants.find((c) => c.sku === v.sku)
    const inventoryItemId = created?.inventory_items[0]?.inventory_item_id
    if (!created || !inventoryItemId) throw new Error(`variant ${v.sku} of ${spec.handle} has no inventory item`)
    await admin.post(`/admin/inventory-items/${inventoryItemId}/location-levels`, { location_id: club.stockLocationId, stocked_quantity: v.stock })
    variants.push({ id: created.id, title: v.title, sku: v.sku, price: v.price, inventoryItemId })
  }
  return { id: product.id, handle: spec.handle, title: spec.title, variants }
}

/** The club's setup as every club's is provisioned (src/club/provision.ts), then the demo's catalog. */
async function seedClub (admin: MedusaClient, tenantId: TenantId, login: { adminEmail: string, adminPassword: string, baseUrl: string }): Promise<ClubFixture> {
  const spec = CLUBS[tenantId]
  const { settings, location, shippingProfileId, shippingOptions } = await provisionCommerce(medusaSetup(admin, login), spec.club)
  const club = { salesChannelId: settings.salesChannelId, publishableKey: settings.publishableKey, ...location, regionId: settings.regionId }
  const products: ProductFixture[] = []
  for (const product of spec.products) {
    products.push(await createProduct(admin, product, { ...club, shippingProfileId }))
  }
  return { ...club, shippingProfileId, shippingOptions, products }
}

/** Registers an email/password customer identity, then the customer itself with that identity's token. */
async function createCustomer (admin: MedusaClient, spec: CustomerSpec, publishableKey: string): Promise<CustomerFixture> {
  const { token } = await admin.with({ token: undefined }).post<{ token: string }>('/auth/customer/emailpass/register', {
    email: spec.email, password: DEMO_PASSWORD
  })
  const { customer } = await admin.with({ token, publishableKey }).post<{ customer: Id }>('/store/customers', {
    email: spec.email,
    first_name: spec.first_name,
    last_name: spec.last_name,
  })
  // Medusa customers are global; which clubs one belongs to is this project's notion, kept in metadata.
  await admin.post(`/admin/customers/${customer.id}`, { metadata: { clubs: spec.clubs } })
  return { id: customer.id, email: spec.email, clubs: spec.clubs }
}

/**
 * A Medusa admin user for a member of this service's staff directory, so that staff log in with their own email
 * (the directory gives role and clubs; Medusa only checks the password). Medusa creates users by invite only.
 */
async function createStaffUser (admin: MedusaClient, staff: Staff): Promise<void> {
  const { invite } = await admin.post<{ invite: { token: string } }>('/admin/invites', { email: staff.email })
  const { token } = await admin.with({ token: undefined }).post<{ token: string }>('/auth/user/emailpass/register', {
    email: staff.email, password: DEMO_PASSWORD
  })
  const [firstName = '', ...rest] = staff.name.split(' ')
  await admin.with({ token }).post(`/admin/invites/accept?token=${encodeURIComponent(invite.token)}`, {
    email: staff.email, first_name: firstName, last_name: rest.join(' ')
  })
}

/** Creates the demo data of both clubs through the admin API of a fresh Medusa. */
export async function seed (baseUrl: string, credentials: AdminCredentials, log: Log): Promise<{ settings: Settings, fixtures: Fixtures }> {
  const client = new MedusaClient(baseUrl, { log })
  const admin = client.with({ token: await login(client, 'user', credentials.email, credentials.password) })
  const serviceLogin = { adminEmail: credentials.email, adminPassword: credentials.password, baseUrl }
  const clubs = { 'club-norte': await seedClub(admin, 'club-norte', serviceLogin), 'club-sur': await seedClub(admin, 'club-sur', serviceLogin) }
  // Both demo clubs are in Argentina, whose one region they share.
  const regionId = clubs['club-norte'].regionId
  const customers: CustomerFixture[] = []
  for (const spec of CUSTOMERS) {
    customers.push(await createCustomer(admin, spec, clubs[spec.clubs[0]].publishableKey))
  }
  for (const staff of demoStaff) await createStaffUser(admin, staff)
  const tenant = (club: ClubFixture): TenantSettings => ({
    baseUrl,
    publishableKey: club.publishableKey,
    regionId,
    salesChannelId: club.salesChannelId,
    stockLocationId: club.stockLocationId,
    adminEmail: credentials.email,
    adminPassword: credentials.password,
  })
  const settings: Settings = { 'club-norte': tenant(clubs['club-norte']), 'club-sur': tenant(clubs['club-sur']) }
  const fixtures: Fixtures = { baseUrl, regionId, currencyCode: CURRENCY, adminEmail: credentials.email, customerPassword: DEMO_PASSWORD, clubs, customers }
  return { settings, fixtures }
}
