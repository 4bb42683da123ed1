import { randomBytes } from 'node:crypto'
import { requireRole, type Actor } from '../auth/actor.ts'
import type { Medusa } from '../commerce/medusa.ts'
import { AppError, notFound } from '../errors.ts'
import type { Tenant } from '../tenants/model.ts'
import type { Role } from '../tenants/roles.ts'
import { mapProduct, soldIn, type Product, type ProductVariant } from './mapping.ts'
import type { CreateProductInput, PatchProductInput } from './schemas.ts'

/** Who reads the club's products (and packages them): growers and admins. */
export const PRODUCT_READERS: readonly Role[] = ['grower', 'admin']
/** Who makes and changes them: admins. */
export const PRODUCT_WRITERS: readonly Role[] = ['admin']

// A club sells tens of products; finding a variant reads them in pages of this size.
const SCAN_PAGE = 100
const SCAN_LIMIT = 1000

const productNotFound = () => notFound('Product')

/** The club's products, kept in its commerce backend (embedded or a real Medusa) through the admin API. */
export class ProductService {
  constructor (
    private readonly medusaFor: (tenant: Tenant) => Medusa,
    private readonly strainExists: (tenantId: string, strainId: string) => Promise<boolean>,
    private readonly now: () => Date = () => new Date()
  ) {}

  async list (actor: Actor, page: { limit: number, offset: number }): Promise<{ products: Product[], count: number }> {
    requireRole(actor, PRODUCT_READERS)
    const medusa = this.medusaFor(actor.tenant)
    const answer = await medusa.adminProducts({ limit: Math.max(page.limit, 1), offset: page.offset })
    const products = answer.products.filter((p) => soldIn(p, medusa.settings.salesChannelId)).slice(0, page.limit)
    return { products: products.map((p) => mapProduct(p, currencyOf(actor.tenant))), count: answer.count }
  }

  async get (actor: Actor, productId: string): Promise<Product> {
    requireRole(actor, PRODUCT_READERS)
    return mapProduct(await this.upstream(actor.tenant, productId), currencyOf(actor.tenant))
  }

  /** A variant of the club's products and its product; 404 when the club sells no such variant. */
  async variant (tenant: Tenant, variantId: string): Promise<{ product: Product, variant: ProductVariant }> {
    const medusa = this.medusaFor(tenant)
    for (let offset = 0; offset < SCAN_LIMIT; offset += SCAN_PAGE) {
      const { products, count } = await medusa.adminProducts({ limit: SCAN_PAGE, offset })
      for (const p of products) {
        const v = p.variants?.find((x) => x.id === variantId)
        if (v && soldIn(p, medusa.settings.salesChannelId)) {
          const product = mapProduct(p, currencyOf(tenant))
          return { product, variant: product.variants.find((x) => x.id === variantId) as ProductVariant }
        }
      }
      if (offset + SCAN_PAGE >= count) break
    }
    throw notFound('Variant')
  }

  /** A published product of the club's sales channel, each variant stocked (0 units) at the club's location. */
  async create (actor: Actor, input: CreateProductInput): Promise<Product> {
    requireRole(actor, PRODUCT_WRITERS)
    if (input.strain !== undefined) await this.requireStrain(actor.tenant.id, input.strain)
    const medusa = this.medusaFor(actor.tenant)
    const option = actor.tenant.locale === 'es' ? 'Presentación' : 'Size'
    const shippingProfileId = await medusa.shippingProfileId()
    const created = await medusa.createProduct({
      title: input.title,
      handle: handleFor(actor.tenant, input.title),
      ...(input.description !== undefined ? { description: input.description } : {}),
      status: input.status,
      ...(shippingProfileId ? { shipping_profile_id: shippingProfileId } : {}),
      sales_channels: [{ id: medusa.settings.salesChannelId }],
      ...(input.strain !== undefined ? { metadata: { strain_id: input.strain } } : {}),
      options: [{ title: option, values: input.variants.map((v) => v.title) }],
      // A real Medusa answers variants in an order of its own: the rank keeps the one they were given in.
      variants: input.variants.map((v, rank) => ({
        title: v.title,
        variant_rank: rank,
        ...(v.sku !== undefined ? { sku: v.sku } : {}),
        manage_inventory: true,
        options: { [option]: v.title },
        prices: [{ currency_code: currencyOf(actor.tenant), amount: v.price }],
        ...(v.gramsPerUnit !== null ? { metadata: { grams: v.gramsPerUnit } } : {}),
      })),
    })
    const product = mapProduct(created, currencyOf(actor.tenant))
    // A level at the club's location, so that packaging (and the shop) find the variant's stock there.
    for (const v of product.variants) if (v.inventoryItemId) await medusa.setStockedAtClub(v.inventoryItemId, 0, false)
    return product
  }

  async patch (actor: Actor, productId: string, input: PatchProductInput): Promise<Product> {
    requireRole(actor, PRODUCT_WRITERS)
    const current = await this.upstream(actor.tenant, productId)
    if (input.strain) await this.requireStrain(actor.tenant.id, input.strain)
    const unknown = (input.variants ?? []).filter((v) => !(current.variants ?? []).some((x) => x.id === v.id)).map((v) => v.id)
    if (unknown.length > 0) throw fieldError('variants', `Not variants of this product: ${unknown.join(', ')}`)
    const medusa = this.medusaFor(actor.tenant)
    const own: Record<string, unknown> = {}
    if (input.title !== undefined) own.title = input.title
    if (input.description !== undefined) own.description = input.description
    if (input.status !== undefined) own.status = input.status
    // Medusa removes a metadata key set to "" (and so does the embedded backend).
    if (input.strain !== undefined) own.metadata = { strain_id: input.strain ?? '' }
    if (input.status === 'published') own.metadata = { ...(own.metadata as object | undefined), archived_at: '' }
    let latest = current
    if (Object.keys(own).length > 0) latest = await medusa.updateProduct(productId, own)
    for (const v of input.variants ?? []) {
      const change: Record<string, unknown> = {}
      if (v.title !== undefined) change.title = v.title
      if (v.sku !== undefined) change.sku = v.sku
      if (v.price !== undefined) change.prices = [{ currency_code: currencyOf(actor.tenant), amount: v.price }]
      if (v.gramsPerUnit !== undefined) change.metadata = { grams: v.gramsPerUnit ?? '' }
      if (Object.keys(change).length > 0) latest = await medusa.updateVariant(productId, v.id, change)
    }
    return mapProduct(latest, currencyOf(actor.tenant))
  }

  /**
   * Takes a product off the shop for good without deleting it: what was sold of it stays in orders and in the
   * dispensing record, which name it. It is unpublished and marked archived (a PATCH to published brings it back).
   */
  async archive (actor: Actor, productId: string): Promise<Product> {
    requireRole(actor, PRODUCT_WRITERS)
    await this.upstream(actor.tenant, productId)
    const archived = await this.medusaFor(actor.tenant).updateProduct(productId, { status: 'draft', metadata: { archived_at: this.now().toISOString() } })
    return mapProduct(archived, currencyOf(actor.tenant))
  }

  private async upstream (tenant: Tenant, productId: string) {
    const medusa = this.medusaFor(tenant)
    try {
      const product = await medusa.adminProduct(productId)
      if (!soldIn(product, medusa.settings.salesChannelId)) throw productNotFound()
      return product
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 404) throw productNotFound()
      throw err
    }
  }

  private async requireStrain (tenantId: string, strainId: string): Promise<void> {
    if (!await this.strainExists(tenantId, strainId)) throw fieldError('strain', `No strain ${strainId} in the club's catalog (POST /api/strains adds one)`)
  }
}

/** Handles are unique across a Medusa server that may serve several clubs, and titles repeat: club, title, a random tail. */
function handleFor (tenant: Tenant, title: string): string {
  const slug = title.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60)
  return `${tenant.id}-${slug || 'product'}-${randomBytes(3).toString('hex')}`
}

const currencyOf = (tenant: Tenant): string => tenant.currency.toLowerCase()

function fieldError (field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { details: { errors: { [field]: [message] } } })
}
