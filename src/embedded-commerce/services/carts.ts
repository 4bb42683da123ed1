import { totals } from '../calc.ts'
import { newId } from '../ids.ts'
import type { CartDoc, LineItem, OrderDoc, PaymentCollection, RegionDoc, SalesChannelDoc, ShippingOptionDoc, StoredAddress } from '../model.ts'
import type { AuthContext } from '../tokens.ts'
import type { CompleteCartInput, Reservation } from '../store/port.ts'
import { conflict, invalidData, notAllowed, notFound, type MedusaError } from '../errors.ts'
import type { AddressInput, CreateCartInput, LineItemInput, LineQuantityInput, PaymentSessionInput, UpdateCartInput } from '../requests.ts'
import { INDEX, LOOKUP, nowIso, score, type CommerceContext } from './context.ts'
import { loadDoc } from './repo.ts'
import { availableAt, findVariant, mergeMetadata } from './catalog.ts'
import { customerForCart } from './accounts.ts'
import { getRegion, listRegions, listShippingOptions, listStockLocations, locationsOfChannel, tenantOf } from './setup.ts'

// Carts: region, line items, addresses, shipping methods, payment collection and sessions, and completion.

export const PAYMENT_PROVIDERS = ['pp_system_default', 'pp_cash', 'pp_onlinepay', 'pp_transfer'] as const

const cartMissing = (id: string): MedusaError => notFound(`Cart with id '${id}' not found`)

/** A new address, replacing the cart's whole (Medusa makes a new one: fields not sent are null, the country too). */
function toAddress (input: AddressInput, region: RegionDoc): StoredAddress {
  const country = input.country_code ?? null
  if (country && !region.countries.includes(country)) throw invalidData(`Country with code ${country} is not within region ${region.name}`)
  return {
    id: newId('caaddr'),
    first_name: input.first_name ?? null,
    last_name: input.last_name ?? null,
    company: input.company ?? null,
    address_1: input.address_1 ?? null,
    address_2: input.address_2 ?? null,
    city: input.city ?? null,
    postal_code: input.postal_code ?? null,
    province: input.province ?? null,
    country_code: country,
    phone: input.phone ?? null,
  }
}

/** Keeps the payment collection's amount, and its pending sessions', equal to the cart's total. */
function refreshCollection (cart: CartDoc): void {
  const pc = cart.payment_collection
  if (!pc) return
  pc.amount = totals(cart.items, cart.shipping_methods).total
  for (const s of pc.payment_sessions) s.amount = pc.amount
}

async function getCart (ctx: CommerceContext, id: string): Promise<CartDoc> {
  return await loadDoc(ctx.store, 'cart', id, () => cartMissing(id))
}

/** A cart the caller's publishable key may use. */
export async function cartOfChannels (ctx: CommerceContext, id: string, channelIds: readonly string[]): Promise<CartDoc> {
  const cart = await getCart(ctx, id)
  if (!channelIds.includes(cart.sales_channel_id)) throw cartMissing(id)
  return cart
}

async function defaultRegion (ctx: CommerceContext, channel: SalesChannelDoc | undefined): Promise<RegionDoc> {
  const preferred = channel?.metadata?.default_region_id
  if (typeof preferred === 'string') return await getRegion(ctx, preferred)
  const first = (await listRegions(ctx))[0]
  if (!first) throw invalidData('No regions found')
  return first
}

/** Checks a variant may be sold in the cart and prices it; the quantity must be available (stocked minus reserved). */
async function pricedLine (ctx: CommerceContext, cart: CartDoc, variantId: string, quantity: number, existing: LineItem | undefined): Promise<LineItem> {
  // the channel's locations are read alongside the variant, for the stock check most lines need
  const [found, locations] = await Promise.all([findVariant(ctx, variantId), locationsOfChannel(ctx, cart.sales_channel_id)])
  if (!found || found.product.status !== 'published' || !found.product.sales_channel_ids.includes(cart.sales_channel_id)) {
    throw invalidData(`Variants ${variantId} do not exist or belong to a product that is not published`)
  }
  const { product, variant } = found
  const price = variant.prices.find((p) => p.currency_code === cart.currency_code)
  if (!price) throw invalidData(`Variants with IDs ${variantId} do not have a price`)
  if (variant.manage_inventory && !variant.allow_backorder) {
    if (await availableAt(ctx, variant, locations.map((l) =>
      l.id)) < quantity) throw notAllowed('Some variant does not have the required inventory', 'insufficient_inventory')
  }
  const now = nowIso()
  return {
    id: existing?.id ?? newId('cali'),
    variant_id: variant.id,
    product_id: product.id,
    inventory_item_id: variant.manage_inventory ? variant.inventory_item_id : null,
    title: product.title,
    subtitle: variant.title,
    thumbnail: product.thumbnail,
    quantity,
    unit_price: price.amount,
    product_title: product.title,
    product_description: product.description,
    product_subtitle: product.subtitle,
    product_handle: product.handle,
    variant_sku: variant.sku,
    variant_title: variant.title,
    requires_shipping: true,
    metadata: existing?.metadata ?? {},
    created_at: existing?.created_at ?? now,
    updated_at: now,
  }
}

/**
 * A change to a cart that has not been completed; the change's checks hold for the revision replaced. With
 * `channelIds`, a cart of another sales channel is not found (as cartOfChannels), checked on the same read.
 */
async function changeCart (
  ctx: CommerceContext, id: string, change: (cart: CartDoc) => Promise<void> | void, channelIds?: readonly string[]
): Promise<CartDoc> {
  for (let attempt = 0; attempt < 20; attempt++) {
    // read together: one round trip to the store
    const [found, completed] = await Promise.all([ctx.store.get('cart', id), ctx.store.cartOrder(id)])
    if (!found || (channelIds && !channelIds.includes(found.doc.sales_channel_id))) throw cartMissing(id)
    if (completed) throw invalidData(`Cart ${id} is already completed`)
    const cart = found.doc
    await change(cart)
    refreshCollection(cart)
    cart.updated_at = nowIso()
    const outcome = await ctx.store.replace('cart', found.rev, cart, { unlessCartCompleted: id })
    if (outcome === 'ok') return cart
    if (outcome === 'completed') throw invalidData(`Cart ${id} is already completed`)
  }
  throw conflict(`Cart ${id} is being changed by another request, try again`)
}

async function addLine (
  ctx: CommerceContext, cart: CartDoc, variantId: string, quantity: number, metadata: Record<string, unknown> | null | undefined
): Promise<void> {
  const existing = cart.items.find((i) => i.variant_id === variantId)
  const line = await pricedLine(ctx, cart, variantId, (existing?.quantity ?? 0) + quantity, existing)
  if (metadata) line.metadata = { ...line.metadata, ...metadata }
  cart.items = existing ? cart.items.map((i) => i.id === existing.id ? line : i) : [...cart.items, line]
}

export async function createCart (
  ctx: CommerceContext, channelIds: readonly string[], actor: AuthContext | undefined, body: CreateCartInput
): Promise<CartDoc> {
  const salesChannelId = body.sales_channel_id ?? channelIds[0] as string
  if (!channelIds.includes(salesChannelId)) throw invalidData(`Sales channel ${salesChannelId} is not associated with the publishable key`)
  // the channel and a region asked for are read together; a guest customer is made only once the region is known good
  const [found, asked] = await Promise.all([ctx.store.get('sales_channel', salesChannelId), body.region_id ? getRegion(ctx, body.region_id) : undefined])
  const region = asked ?? await defaultRegion(ctx, found?.doc)
  const customer = await customerForCart(ctx, actor, body.email)
  const now = nowIso()
  const cart: CartDoc = {
    id: newId('cart'),
    region_id: region.id,
    sales_channel_id: salesChannelId,
    currency_code: region.currency_code,
    email: body.email ?? customer?.email ?? null,
    customer_id: customer?.id ?? null,
    items: [],
    shipping_methods: [],
    // Medusa gives a new cart its region's only country when no address is sent.
    shipping_address: toAddress(body.shipping_address ?? { country_code: region.countries.length === 1 ? region.countries[0] : null }, region),
    billing_address: body.billing_address ? toAddress(body.billing_address, region) : null,
    payment_collection: null,
    metadata: body.metadata ?? null,
    created_at: now,
    updated_at: now,
  }
  for (const item of body.items ?? []) await addLine(ctx, cart, item.variant_id, item.quantity, item.metadata)
  await ctx.store.create('cart', cart, [], [])
  return cart
}

export async function updateCart (ctx: CommerceContext, id: string, actor: AuthContext | undefined, body: UpdateCartInput): Promise<CartDoc> {
  return await changeCart(ctx, id, async (cart) => {
    let region = await getRegion(ctx, cart.region_id)
    if (body.region_id && body.region_id !== cart.region_id) {
      const next = await getRegion(ctx, body.region_id)
      if (next.currency_code !== cart.currency_code) throw invalidData(`Region ${next.id} uses another currency than the cart`)
      cart.region_id = next.id
      region = next
    }
    if (body.email) {
      cart.email = body.email
      if (actor?.type !== 'customer') cart.customer_id = (await customerForCart(ctx, undefined, body.email))?.id ?? null
    }
    if (body.shipping_address) cart.shipping_address = toAddress(body.shipping_address, region)
    if (body.billing_address) cart.billing_address = toAddress(body.billing_address, region)
    cart.metadata = mergeMetadata(cart.metadata, body.metadata ?? undefined)
  })
}

export async function addLineItem (ctx: CommerceContext, id: string, body: LineItemInput): Promise<CartDoc> {
  return await changeCart(ctx, id, async (cart) => { await addLine(ctx, cart, body.variant_id, body.quantity, body.metadata) })
}

function lineOf (cart: CartDoc, lineId: string): LineItem {
  const line = cart.items.find((i) => i.id === lineId)
  if (!line) throw notFound(`Line item with id: ${lineId} was not found`)
  return line
}

export async function updateLineItem (ctx: CommerceContext, id: string, lineId: string, body: LineQuantityInput): Promise<CartDoc> {
  return await changeCart(ctx, id, async (cart) => {
    const line = lineOf(cart, lineId)
    if (body.quantity === 0) {
      cart.items = cart.items.filter((i) => i.id !== lineId)
      return
    }
    const updated = await pricedLine(ctx, cart, line.variant_id, body.quantity, line)
    if (body.metadata) updated.metadata = { ...updated.metadata, ...body.metadata }
    cart.items = cart.items.map((i) => i.id === lineId ? updated : i)
  })
}

export async function deleteLineItem (ctx: CommerceContext, id: string, lineId: string): Promise<CartDoc> {
  return await changeCart(ctx, id, (cart) => {
    lineOf(cart, lineId)
    cart.items = cart.items.filter((i) => i.id !== lineId)
  })
}

/** The options that can ship a cart: those of the stock locations serving its sales channel, in its currency. */
export async function shippingOptionsFor (ctx: CommerceContext, cart: CartDoc): Promise<ShippingOptionDoc[]> {
  const [served, options] = await Promise.all([locationsOfChannel(ctx, cart.sales_channel_id), listShippingOptions(ctx)])
  const locations = new Set(served.map((l) => l.id))
  return options
    .filter((o) => locations.has(o.stock_location_id) && o.currency_code === cart.currency_code)
    .sort((a, b) => a.amount - b.amount || a.name.localeCompare(b.name))
}

export async function addShippingMethod (ctx: CommerceContext, id: string, optionId: string): Promise<CartDoc> {
  return await changeCart(ctx, id, async (cart) => {
    const option = (await shippingOptionsFor(ctx, cart)).find((o) => o.id === optionId)
    if (!option) throw invalidData('Shipping Options are invalid for cart.')
    const now = nowIso()
    cart.shipping_methods = [{ id: newId('casm'), name: option.name, shipping_option_id: option.id, amount: option.amount, created_at: now, updated_at: now }]
  })
}

/** POST /store/payment-collections: the cart's collection, made on first call. */
export async function paymentCollectionFor (ctx: CommerceContext, channelIds: readonly string[], cartId: string): Promise<PaymentCollection> {
  const cart = await changeCart(ctx, cartId, (c) => {
    if (c.payment_collection) return
    const now = nowIso()
    c.payment_collection = {
      id: newId('pay_col'),
      currency_code: c.currency_code,
      amount: 0,
      completed_at: null,
      payment_sessions: [],
      payments: [],
      metadata: null,
      created_at: now,
      updated_at: now
    }
  }, channelIds)
  const pc = cart.payment_collection as PaymentCollection
  await ctx.store.claim(LOOKUP.paymentCollection, pc.id, cartId)
  return pc
}

/** POST /store/payment-collections/{id}/payment-sessions: one pending session with the chosen provider. */
export async function startPaymentSession (
  ctx: CommerceContext, channelIds: readonly string[], collectionId: string, body: PaymentSessionInput
): Promise<PaymentCollection> {
  const missing = (): MedusaError => notFound(`Payment collection with id: ${collectionId} was not found`)
  const cartId = await ctx.store.lookup(LOOKUP.paymentCollection, collectionId)
  if (!cartId) throw missing()
  const current = await cartOfChannels(ctx, cartId, channelIds)
  const region = await getRegion(ctx, current.region_id)
  if (!region.payment_providers.includes(body.provider_id)) throw invalidData(`Payment provider ${body.provider_id} is not enabled in region ${region.name}`)
  const cart = await changeCart(ctx, cartId, (c) => {
    const pc = c.payment_collection
    if (!pc) throw missing()
    const now = nowIso()
    pc.payment_sessions = [{
      id: newId('payses'),
      provider_id: body.provider_id,
      currency_code: pc.currency_code,
      amount: 0,
      status: 'pending',
      authorized_at: null,
      data: body.data ?? {},
      created_at: now,
      updated_at: now
    }]
    pc.updated_at = now
  })
  return cart.payment_collection as PaymentCollection
}

function orderFromCart (cart: CartDoc, stockLocationId: string, now: string): OrderDoc {
  const pc = cart.payment_collection as PaymentCollection
  const session = pc.payment_sessions[0]
  if (!session) throw invalidData('Payment collection has not been initiated for cart')
  const total = totals(cart.items, cart.shipping_methods).total
  const address = (a: StoredAddress | null): StoredAddress | null => a ? { ...a, id: newId('ordaddr') } : null
  return {
    id: newId('order'),
    display_id: 0,
    version: 1,
    status: 'pending',
    cart_id: cart.id,
    region_id: cart.region_id,
    sales_channel_id: cart.sales_channel_id,
    stock_location_id: stockLocationId,
    customer_id: cart.customer_id,
    email: cart.email,
    currency_code: cart.currency_code,
    items: cart.items.map((i) => ({
      ...i, id: newId('ordli'), created_at: now, updated_at: now, fulfilled_quantity: 0, shipped_quantity: 0, delivered_quantity: 0
    })),
    shipping_methods: cart.shipping_methods.map((m) => ({ ...m, id: newId('ordsm'), created_at: now, updated_at: now })),
    shipping_address: address(cart.shipping_address),
    billing_address: address(cart.billing_address),
    payment_collections: [{
      ...pc,
      amount: total,
      updated_at: now,
      payment_sessions: [{ ...session, amount: total, status: 'authorized', authorized_at: now, updated_at: now }],
      payments: [{
        id: newId('pay'),
        provider_id: session.provider_id,
        currency_code: pc.currency_code,
        amount: total,
        payment_session_id: session.id,
        captured_at: null,
        canceled_at: null,
        captures: [],
        refunds: [],
        created_at: now,
        updated_at: now,
      }],
    }],
    fulfillments: [],
    metadata: null,
    canceled_at: null,
    created_at: now,
    updated_at: now,
  }
}

function checkCompletable (cart: CartDoc): void {
  if (!cart.payment_collection || cart.payment_collection.payment_sessions.length === 0) throw invalidData('Payment collection has not been initiated for cart')
  if (cart.items.length === 0) throw invalidData('Cart must have at least one item to be completed')
  if (cart.shipping_methods.length === 0) throw invalidData('No shipping method selected but the cart contains items that require shipping.')
  if (!cart.email) throw invalidData('Cart must have an email to be completed')
}

/**
 * The indexes a new order is written in (its channel's, its customer's, its customer's of that channel), and the
 * club's index of customers its customer enters when it has no account (`club`: its channel's).
 */
export function orderIndexes (order: OrderDoc, club: string | undefined): Pick<CompleteCartInput, 'indexes' | 'guest'> {
  const at = score(order.created_at)
  const customer = order.customer_id
  if (!customer) return { indexes: [{ index: INDEX.ordersOfChannel(order.sales_channel_id), score: at }] }
  const indexes = [INDEX.ordersOfChannel(order.sales_channel_id), INDEX.ordersOfCustomer(customer), INDEX.ordersOfCustomerIn(customer, order.sales_channel_id)]
  return {
    indexes: indexes.map((index) => ({ index, score: at })),
    ...(club !== undefined ? { guest: { customerId: customer, index: INDEX.customersOfClub(club), scoreFrom: INDEX.customers } } : {}),
  }
}

/**
 * Turns a cart into an order, reserving its stock atomically with the order's creation: of two carts racing for
 * the last unit one gets the order and the other a not_allowed insufficient_inventory error. Completing a cart
 * again answers the order it already became.
 */
export async function completeCart (ctx: CommerceContext, channelIds: readonly string[], id: string): Promise<OrderDoc> {
  for (let attempt = 0; attempt < 20; attempt++) {
    // the stock locations are read with the cart (one round trip), then those of its channel kept
    // the key's channels (one a club, as a rule) too: the cart's names the club a guest's order makes it seen by
    const [found, done, locations, channels] = await Promise.all([
      ctx.store.get('cart', id), ctx.store.cartOrder(id), listStockLocations(ctx), ctx.store.getMany('sales_channel', channelIds),
    ])
    if (!found || !channelIds.includes(found.doc.sales_channel_id)) throw cartMissing(id)
    if (done) return await loadDoc(ctx.store, 'order', done, () => notFound(`Order id not found: ${done}`))
    const cart = found.doc
    checkCompletable(cart)
    const location = locations.find((l) => l.sales_channel_ids.includes(cart.sales_channel_id))
    if (!location) throw invalidData(`Sales channel ${cart.sales_channel_id} has no stock location`)
    const now = nowIso()
    const order = orderFromCart(cart, location.id, now)
    // a customer without an account is seen by the staff of the club it orders from (accounts.ts customersOfClubs)
    const club = tenantOf(channels.find((c) => c.doc.id === order.sales_channel_id)?.doc)
    const reservations: Reservation[] = order.items.flatMap((i) =>
      i.inventory_item_id ? [{ inventoryItemId: i.inventory_item_id, locationId: location.id, quantity: i.quantity }] : [])
    const result = await ctx.store.completeCart({
      cartId: id,
      cartRev: found.rev,
      order,
      reservations,
      ...orderIndexes(order, club),
      lookups: order.payment_collections.flatMap((pc) => pc.payments.map((p) => ({ name: LOOKUP.payment, value: p.id }))),
      now,
    })
    if (result.kind === 'created') return { ...order, display_id: result.displayId }
    if (result.kind === 'existing') return await loadDoc(ctx.store, 'order', result.orderId, () => notFound(`Order id not found: ${result.orderId}`))
    if (result.kind === 'insufficient') {
      throw notAllowed(`Not enough stock available for item ${result.inventoryItemId} at location ${result.locationId}`, 'insufficient_inventory')
    }
  }
  throw conflict(`Cart ${id} is being changed by another request, try again`)
}

/** When the cart became an order, the order's creation time. */
export async function completedAt (ctx: CommerceContext, cartId: string): Promise<string | null> {
  const orderId = await ctx.store.cartOrder(cartId)
  if (!orderId) return null
  return (await ctx.store.get('order', orderId))?.doc.created_at ?? null
}
