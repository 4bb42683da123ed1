import { newId } from '../ids.ts'
import type { InventoryItemDoc, Metadata, ProductDoc, ProductOption, StockLevel, VariantDoc } from '../model.ts'
import { duplicate, invalidData, notFound, type MedusaError } from '../errors.ts'
import type { CreateProductInput, UpdateProductInput, UpdateVariantInput } from '../requests.ts'
import { INDEX, LOOKUP, nowIso, score, type CommerceContext } from './context.ts'
import { listDocs, loadDoc, lookupFixed, mutate } from './repo.ts'

// Products with variants and prices, inventory items and their stock levels per location.

const productMissing = (id: string): MedusaError => notFound(`Product with id: ${id} was not found`)
const inventoryItemMissing = (id: string): MedusaError => notFound(`Inventory item with id: ${id} was not found`)

export async function listProducts (ctx: CommerceContext): Promise<ProductDoc[]> {
  return await listDocs(ctx.store, 'product', INDEX.products)
}

export async function getProduct (ctx: CommerceContext, id: string): Promise<ProductDoc> {
  return await loadDoc(ctx.store, 'product', id, () => productMissing(id))
}

export function matchesQuery (product: ProductDoc, q: string | undefined): boolean {
  if (!q) return true
  const needle = q.toLowerCase()
  const haystack = [product.title, product.subtitle, product.description, product.handle, ...product.variants.flatMap((v) => [v.title, v.sku])]
  return haystack.some((text) => text?.toLowerCase().includes(needle))
}

/** Units that can still be sold at `locationIds`: stocked minus reserved, summed; 0 without an inventory item. */
export async function availableAt (ctx: CommerceContext, variant: VariantDoc, locationIds: readonly string[]): Promise<number> {
  if (!variant.manage_inventory || !variant.inventory_item_id) return Number.MAX_SAFE_INTEGER
  const levels = await ctx.store.stock(variant.inventory_item_id)
  return levels.filter((l) => locationIds.includes(l.location_id)).reduce((s, l) => s + l.stocked_quantity - l.reserved_quantity, 0)
}

/** The stock of every inventory item of some products, read once, for answers that show inventory_quantity. */
export async function stockOf (ctx: CommerceContext, products: readonly ProductDoc[]): Promise<Map<string, StockLevel[]>> {
  const ids = [...new Set(products.flatMap((p) => p.variants.flatMap((v) => v.inventory_item_id ? [v.inventory_item_id] : [])))]
  const levels = await Promise.all(ids.map((id) => ctx.store.stock(id)))
  return new Map(ids.map((id, i) => [id, levels[i] ?? []]))
}

export function quantityFrom (stock: Map<string, StockLevel[]>, locationIds: readonly string[] | undefined) {
  return (variant: VariantDoc): number => {
    if (!variant.inventory_item_id) return 0
    return (stock.get(variant.inventory_item_id) ?? [])
      .filter((l) => !locationIds || locationIds.includes(l.location_id))
      .reduce((s, l) => s + l.stocked_quantity - l.reserved_quantity, 0)
  }
}

/** Metadata updates merge key by key; a key set to null or "" is removed. */
export function mergeMetadata (current: Metadata, patch: Metadata | undefined): Metadata {
  if (patch === undefined) return current
  if (patch === null) return null
  const merged: Record<string, unknown> = { ...(current ?? {}) }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === '') delete merged[key]
    else merged[key] = value
  }
  return merged
}

function slug (title: string): string {
  const s = title.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
  return s || 'product'
}

function buildOptions (input: CreateProductInput['options']): ProductOption[] {
  const given = input ?? [{ title: 'Default option', values: ['Default option value'] }]
  return given.map((o) => ({ id: newId('opt'), title: o.title, values: o.values.map((value) => ({ id: newId('optval'), value })) }))
}

function optionValueIds (options: ProductOption[], chosen: Record<string, string> | undefined): string[] {
  const missing = options.filter((o) => o.values.length > 1 && !chosen?.[o.title]).map((o) => o.title)
  if (missing.length > 0) throw invalidData(`Product options are not provided for: [${missing.join(', ')}].`)
  return options.map((o) => {
    const wanted = chosen?.[o.title] ?? o.values[0]?.value
    const value = o.values.find((v) => v.value === wanted)
    if (!value) throw invalidData(`Option value ${String(wanted)} does not exist for option ${o.title}`)
    return value.id
  })
}

export interface NewProduct {
  product: ProductDoc
  inventoryItems: InventoryItemDoc[]
}

/** Builds a product from a create body (no I/O): ids, options, variants with prices and inventory items. */
export function buildProduct (body: CreateProductInput, now = nowIso(), ids: { product?: string } = {}): NewProduct {
  const options = buildOptions(body.options)
  const inventoryItems: InventoryItemDoc[] = []
  const variants = (body.variants ?? []).map((v, rank): VariantDoc => {
    const variantId = newId('variant')
    let inventoryItemId: string | null = null
    if (v.manage_inventory) {
      inventoryItemId = newId('iitem')
      inventoryItems.push({
        id: inventoryItemId, sku: v.sku ?? null, title: v.title, description: v.title, requires_shipping: true, metadata: null, created_at: now, updated_at: now
      })
    }
    return {
      id: variantId,
      title: v.title,
      sku: v.sku ?? null,
      manage_inventory: v.manage_inventory,
      allow_backorder: v.allow_backorder,
      variant_rank: v.variant_rank ?? rank,
      inventory_item_id: inventoryItemId,
      option_value_ids: optionValueIds(options, v.options),
      price_set_id: newId('pset'),
      prices: v.prices.map((p) => ({ id: newId('price'), amount: p.amount, currency_code: p.currency_code })),
      weight: v.weight ?? null,
      metadata: v.metadata ?? null,
      created_at: now,
      updated_at: now,
    }
  })
  const product: ProductDoc = {
    id: ids.product ?? newId('prod'),
    title: body.title,
    subtitle: body.subtitle ?? null,
    description: body.description ?? null,
    handle: body.handle ?? slug(body.title),
    status: body.status,
    thumbnail: body.thumbnail ?? null,
    metadata: body.metadata ?? null,
    sales_channel_ids: (body.sales_channels ?? []).map((c) => c.id),
    options,
    variants,
    created_at: now,
    updated_at: now,
  }
  return { product, inventoryItems }
}

/** Stores a built product; a handle already in use is 422 duplicate_error. False when the product id exists. */
export async function saveProduct (ctx: CommerceContext, built: NewProduct): Promise<boolean> {
  const { product } = built
  const owner = await ctx.store.lookup(LOOKUP.handle, product.handle)
  if (owner === product.id) return false
  if (owner) throw duplicate(`Product with handle: ${product.handle}, already exists.`)
  for (const item of built.inventoryItems) {
    await ctx.store.create('inventory_item', item, [{ index: INDEX.inventoryItems, score: score(item.created_at) }], [])
  }
  const lookups = [{ name: LOOKUP.handle, value: product.handle }, ...product.variants.map((v) => ({ name: LOOKUP.variant, value: v.id }))]
  const created = await ctx.store.create('product', product, [{ index: INDEX.products, score: score(product.created_at) }], lookups)
  if (!created && await ctx.store.lookup(LOOKUP.handle, product.handle) !== product.id) {
    throw duplicate(`Product with handle: ${product.handle}, already exists.`)
  }
  return created
}

export async function updateProduct (ctx: CommerceContext, id: string, body: UpdateProductInput): Promise<ProductDoc> {
  return await mutate(ctx.store, 'product', id, () => productMissing(id), (p) => {
    if (body.title !== undefined) p.title = body.title
    if (body.subtitle !== undefined) p.subtitle = body.subtitle ?? null
    if (body.description !== undefined) p.description = body.description ?? null
    if (body.status !== undefined) p.status = body.status
    if (body.thumbnail !== undefined) p.thumbnail = body.thumbnail ?? null
    if (body.sales_channels !== undefined) p.sales_channel_ids = body.sales_channels.map((c) => c.id)
    p.metadata = mergeMetadata(p.metadata, body.metadata)
    for (const change of body.variants ?? []) {
      const variant = p.variants.find((v) => v.id === change.id)
      if (!variant) throw invalidData(`Variant ${change.id} does not belong to product ${id}`)
      if (change.title !== undefined) variant.title = change.title
      if (change.sku !== undefined) variant.sku = change.sku ?? null
      if (change.weight !== undefined) variant.weight = change.weight ?? null
      if (change.metadata !== undefined) variant.metadata = mergeMetadata(variant.metadata, change.metadata)
      if (change.prices) variant.prices = change.prices.map((pr) => ({ id: newId('price'), amount: pr.amount, currency_code: pr.currency_code }))
      variant.updated_at = nowIso()
    }
    return undefined
  })
}

/** One variant of a product changed (Medusa's variant route); its metadata merges key by key. */
export async function updateVariant (ctx: CommerceContext, id: string, variantId: string, body: UpdateVariantInput): Promise<ProductDoc> {
  return await mutate(ctx.store, 'product', id, () => productMissing(id), (p) => {
    const variant = p.variants.find((v) => v.id === variantId)
    if (!variant) throw notFound(`Variant with id: ${variantId} was not found`)
    if (body.title !== undefined) variant.title = body.title
    if (body.sku !== undefined) variant.sku = body.sku ?? null
    if (body.prices) variant.prices = body.prices.map((pr) => ({ id: newId('price'), amount: pr.amount, currency_code: pr.currency_code }))
    if (body.allow_backorder !== undefined) variant.allow_backorder = body.allow_backorder
    variant.metadata = mergeMetadata(variant.metadata, body.metadata)
    variant.updated_at = nowIso()
    return undefined
  })
}

/** A variant and its product, by the variant's id. */
export async function findVariant (ctx: CommerceContext, variantId: string): Promise<{ product: ProductDoc, variant: VariantDoc } | undefined> {
  const productId = await lookupFixed(ctx.store, LOOKUP.variant, variantId)
  const product = productId ? (await ctx.store.get('product', productId))?.doc : undefined
  const variant = product?.variants.find((v) => v.id === variantId)
  return product && variant ? { product, variant } : undefined
}

export async function getInventoryItem (ctx: CommerceContext, id: string): Promise<InventoryItemDoc> {
  return await loadDoc(ctx.store, 'inventory_item', id, () => inventoryItemMissing(id))
}

export async function listInventoryItems (ctx: CommerceContext): Promise<InventoryItemDoc[]> {
  return await listDocs(ctx.store, 'inventory_item', INDEX.inventoryItems)
}

/** Sets how many units of an item are stocked at a location (the level is created on first use). */
export async function setStockLevel (ctx: CommerceContext, inventoryItemId: string, locationId: string, quantity: number): Promise<void> {
  await getInventoryItem(ctx, inventoryItemId)
  const outcome = await ctx.store.setStocked(inventoryItemId, locationId, quantity, newId('ilev'), nowIso())
  if (outcome === 'below_reserved') throw invalidData(`Cannot set stocked quantity of ${inventoryItemId} at ${locationId} below its reserved quantity`)
}
