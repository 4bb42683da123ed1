import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { invalidData, notFound } from '../errors.ts'
import type { CustomerDoc, OrderDoc, ProductDoc } from '../model.ts'
import {
  cancelFulfillmentBody, captureBody, createCustomerBody, createProductBody, fieldsQuery, filterValues, fulfillBody, fulfillmentParams, idParams,
  levelParams, listQuery, newLevelBody, shipmentBody, stockedQuantityBody, updateCustomerBody, updateOrderBody, updateProductBody,
  updateVariantBody, variantParams,
} from '../requests.ts'
import type { AuthContext } from '../tokens.ts'
import { apiKeyView, inventoryItemView, salesChannelView, shippingOptionView, stockLocationView } from '../views/catalog.ts'
import { regionView } from '../views/common.ts'
import { capturedPaymentView } from '../views/payments.ts'
import { customerView, userView } from '../views/people.ts'
import {
  clubsOf, createAdminCustomer, customersOfClubs, customersWithEmails, getCustomer, getUser, matchesCustomer, updateCustomer
} from '../services/accounts.ts'
import {
  buildProduct, getInventoryItem, getProduct, listInventoryItems, listProducts, matchesQuery, saveProduct, setStockLevel, updateProduct, updateVariant
} from '../services/catalog.ts'
import {
  cancelFulfillment, cancelOrder, capturePayment, completeOrder, createFulfillment, createShipment, getOrder, markDelivered,
  hasOrderIn, orderMissing, pageOfOrders, updateOrder,
} from '../services/orders.ts'
import { channelsOfTenants, getRegion, listApiKeys, listRegions, listShippingOptions, listStockLocations } from '../services/setup.ts'
import { renderOrder, renderOrders, renderProducts } from './render.ts'
import { actorOf, many, one, paged, staffOnly, type RouteDeps } from './shared.ts'

/** What a staff user may see and act on: the sales channels (and their stock locations) of their clubs. */
interface Scope {
  actor: AuthContext
  channelIds: string[]
  locationIds: string[]
}

/** Renames query keys as some of Medusa's clients send them (`status[]=`, `location_levels[location_id]=`). */
const renamedKeys = (rename: (key: string) => string) => (raw: unknown): unknown =>
  typeof raw === 'object' && raw !== null ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [rename(k), v])) : raw

const orderListQuery = z.preprocess(renamedKeys((k) => k.replace(/\[\]$/, '')), listQuery(20).extend({
  q: z.string().optional(),
  status: filterValues,
  customer_id: filterValues,
  sales_channel_id: filterValues,
  payment_status: filterValues,
  fulfillment_status: filterValues,
}))

const inventoryListQuery = z.preprocess(renamedKeys((k) => k === 'location_levels[location_id]' ? 'location_id' : k),
  listQuery(20).extend({ q: z.string().optional(), sku: filterValues, id: filterValues, location_id: filterValues }))

const byId = { params: idParams, querystring: fieldsQuery }
const byFulfillment = { params: fulfillmentParams, querystring: fieldsQuery }

// /admin/*: a staff token (Medusa's user form, or the service's own admin/grower token) is required.
export async function adminRoutes (fastify: FastifyInstance, { ctx }: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  app.addHook('onRequest', staffOnly(ctx))

  // Its reads go out together (one round trip to the store for each step, not one per read).
  const scopeOf = async (request: FastifyRequest): Promise<Scope> => {
    const actor = actorOf(request)
    const [channels, locations] = await Promise.all([channelsOfTenants(ctx, actor.tenants), listStockLocations(ctx)])
    const channelIds = channels.map((c) => c.id)
    const locationIds = locations.filter((l) => l.sales_channel_ids.some((c) => channelIds.includes(c))).map((l) => l.id)
    return { actor, channelIds, locationIds }
  }

  const visibleOrder = async (request: FastifyRequest, id: string): Promise<{ scope: Scope, order: OrderDoc }> => {
    const [scope, order] = await Promise.all([scopeOf(request), getOrder(ctx, id)])
    if (!scope.channelIds.includes(order.sales_channel_id)) throw orderMissing(id)
    return { scope, order }
  }

  const orderAnswer = async (order: OrderDoc, fields: string | undefined) => one('order', await renderOrder(ctx, order), fields)

  app.get('/admin/orders', { schema: { querystring: orderListQuery } }, async (request) => {
    const q = request.query
    const scope = await scopeOf(request)
    const channelIds = q.sales_channel_id?.length ? scope.channelIds.filter((c) => q.sales_channel_id?.includes(c)) : scope.channelIds
    const { orders, count } = await pageOfOrders(ctx, channelIds, q, q.order, q)
    return paged('orders', await renderOrders(ctx, orders), count, q)
  })

  app.get('/admin/orders/:id', { schema: byId }, async (request) =>
    await orderAnswer((await visibleOrder(request, request.params.id)).order, request.query.fields))

  app.post('/admin/orders/:id', { schema: { ...byId, body: updateOrderBody } }, async (request) => {
    const { order } = await visibleOrder(request, request.params.id)
    return await orderAnswer(await updateOrder(ctx, order.id, request.body), request.query.fields)
  })

  app.post('/admin/orders/:id/cancel', { schema: byId }, async (request) => {
    const { scope, order } = await visibleOrder(request, request.params.id)
    return await orderAnswer(await cancelOrder(ctx, scope.actor, order.id), request.query.fields)
  })

  app.post('/admin/orders/:id/complete', { schema: byId }, async (request) => {
    const { order } = await visibleOrder(request, request.params.id)
    return await orderAnswer(await completeOrder(ctx, order.id), request.query.fields)
  })

  app.post('/admin/orders/:id/fulfillments', { schema: { ...byId, body: fulfillBody } }, async (request) => {
    const { scope, order } = await visibleOrder(request, request.params.id)
    return await orderAnswer(await createFulfillment(ctx, scope.actor, order.id, request.body), request.query.fields)
  })

  app.post('/admin/orders/:id/fulfillments/:fulfillment_id/shipments', { schema: { ...byFulfillment, body: shipmentBody } }, async (request) => {
    const { scope, order } = await visibleOrder(request, request.params.id)
    return await orderAnswer(await createShipment(ctx, scope.actor, order.id, request.params.fulfillment_id, request.body), request.query.fields)
  })

  app.post('/admin/orders/:id/fulfillments/:fulfillment_id/cancel', { schema: { ...byFulfillment, body: cancelFulfillmentBody } }, async (request) => {
    const { order } = await visibleOrder(request, request.params.id)
    return await orderAnswer(await cancelFulfillment(ctx, order.id, request.params.fulfillment_id), request.query.fields)
  })

  app.post('/admin/orders/:id/fulfillments/:fulfillment_id/mark-as-delivered', { schema: byFulfillment }, async (request) => {
    const { scope, order } = await visibleOrder(request, request.params.id)
    return await orderAnswer(await markDelivered(ctx, order.id, request.params.fulfillment_id, scope.actor), request.query.fields)
  })

  app.post('/admin/payments/:id/capture', { schema: { params: idParams, body: captureBody } }, async (request) => {
    const scope = await scopeOf(request)
    const { payment, collectionId } = await capturePayment(ctx, scope.actor, request.params.id, request.body, (o) =>
      scope.channelIds.includes(o.sales_channel_id))
    return { payment: capturedPaymentView(payment, collectionId) }
  })

  const visibleProduct = (scope: Scope) =>
    (p: ProductDoc): boolean => p.sales_channel_ids.length === 0 || p.sales_channel_ids.some((c) => scope.channelIds.includes(c))
  const productAnswer = async (product: ProductDoc, scope: Scope, fields: string | undefined) =>
    one('product', (await renderProducts(ctx, [product], scope.locationIds, undefined))[0], fields)

  const productListQuery = z.preprocess(renamedKeys((k) => k.replace(/\[\]$/, '')),
    listQuery(20).extend({ q: z.string().optional(), id: filterValues, handle: filterValues, status: filterValues, sales_channel_id: filterValues }))

  app.get('/admin/products', { schema: { querystring: productListQuery } }, async (request) => {
    const q = request.query
    const scope = await scopeOf(request)
    const products = (await listProducts(ctx)).filter((p) => visibleProduct(scope)(p) &&
      matchesQuery(p, q.q) &&
      (!q.id?.length || q.id.includes(p.id)) &&
      (!q.handle?.length || q.handle.includes(p.handle)) &&
      (!q.status?.length || q.status.includes(p.status)) &&
      (!q.sales_channel_id?.length || p.sales_channel_ids.some((c) => q.sales_channel_id?.includes(c))))
    return many('products', await renderProducts(ctx, products, scope.locationIds, undefined), q)
  })

  app.get('/admin/products/:id', { schema: byId }, async (request) => {
    const { id } = request.params
    const scope = await scopeOf(request)
    const product = await getProduct(ctx, id)
    if (!visibleProduct(scope)(product)) throw notFound(`Product with id: ${id} was not found`)
    return await productAnswer(product, scope, request.query.fields)
  })

  app.post('/admin/products', { schema: { querystring: fieldsQuery, body: createProductBody } }, async (request) => {
    const scope = await scopeOf(request)
    const body = request.body
    // Without sales channels, a product is sold in the channels of the staff user's clubs.
    const built = buildProduct(body.sales_channels === undefined ? { ...body, sales_channels: scope.channelIds.map((id) => ({ id })) } : body)
    const foreign = built.product.sales_channel_ids.filter((c) => !scope.channelIds.includes(c))
    if (foreign.length > 0) throw invalidData(`Sales channels ${foreign.join(', ')} do not exist`)
    await saveProduct(ctx, built)
    return await productAnswer(built.product, scope, request.query.fields)
  })

  app.post('/admin/products/:id', { schema: { ...byId, body: updateProductBody } }, async (request) => {
    const { id } = request.params
    const scope = await scopeOf(request)
    if (!visibleProduct(scope)(await getProduct(ctx, id))) throw notFound(`Product with id: ${id} was not found`)
    const product = await updateProduct(ctx, id, request.body)
    if (product.sales_channel_ids.some((c) => !scope.channelIds.includes(c))) throw invalidData('Sales channels outside your clubs cannot be assigned')
    return await productAnswer(product, scope, request.query.fields)
  })

  app.post('/admin/products/:id/variants/:variant_id', {
    schema: { params: variantParams, querystring: fieldsQuery, body: updateVariantBody }
  }, async (request) => {
    const { id, variant_id: variantId } = request.params
    const scope = await scopeOf(request)
    if (!visibleProduct(scope)(await getProduct(ctx, id))) throw notFound(`Product with id: ${id} was not found`)
    return await productAnswer(await updateVariant(ctx, id, variantId, request.body), scope, request.query.fields)
  })

  /** Inventory items of products sold in the user's clubs (and items no product uses yet). */
  const visibleItems = async (scope: Scope): Promise<Set<string>> => {
    const products = await listProducts(ctx)
    const owned = new Map<string, boolean>()
    for (const p of products) {
      for (const v of p.variants) {
        if (v.inventory_item_id) owned.set(v.inventory_item_id, (owned.get(v.inventory_item_id) ?? false) || visibleProduct(scope)(p))
      }
    }
    const items = await listInventoryItems(ctx)
    return new Set(items.filter((i) => owned.get(i.id) ?? true).map((i) => i.id))
  }

  const itemAnswer = async (id: string, scope: Scope, fields: string | undefined) => {
    const item = await getInventoryItem(ctx, id)
    const levels = (await ctx.store.stock(id)).filter((l) => scope.locationIds.includes(l.location_id))
    return one('inventory_item', inventoryItemView(item, levels), fields)
  }

  const visibleItem = async (request: FastifyRequest, id: string): Promise<Scope> => {
    const scope = await scopeOf(request)
    if (!(await visibleItems(scope)).has(id)) throw notFound(`Inventory item with id: ${id} was not found`)
    return scope
  }

  app.get('/admin/inventory-items', { schema: { querystring: inventoryListQuery } }, async (request) => {
    const q = request.query
    const scope = await scopeOf(request)
    const visible = await visibleItems(scope)
    const needle = q.q?.toLowerCase()
    const items = (await listInventoryItems(ctx)).filter((i) => visible.has(i.id) &&
      (!q.sku?.length || (i.sku !== null && q.sku.includes(i.sku))) &&
      (!q.id?.length || q.id.includes(i.id)) &&
      (!needle || [i.sku, i.title].some((t) => t?.toLowerCase().includes(needle))))
    const locations = q.location_id?.length ? scope.locationIds.filter((l) => q.location_id?.includes(l)) : scope.locationIds
    const views = await Promise.all(
      items.map(async (i) => inventoryItemView(i, (await ctx.store.stock(i.id)).filter((l) => locations.includes(l.location_id))))
    )
    const shown = q.location_id?.length ? views.filter((v) => v.location_levels.length > 0) : views
    return many('inventory_items', shown, q)
  })

  app.get('/admin/inventory-items/:id', { schema: byId }, async (request) =>
    await itemAnswer(request.params.id, await visibleItem(request, request.params.id), request.query.fields))

  const setLevel = async (request: FastifyRequest, id: string, locationId: string, quantity: number, fields: string | undefined) => {
    const scope = await visibleItem(request, id)
    if (!scope.locationIds.includes(locationId)) throw notFound(`Stock location with id: ${locationId} was not found`)
    await setStockLevel(ctx, id, locationId, quantity)
    return await itemAnswer(id, scope, fields)
  }

  app.post('/admin/inventory-items/:id/location-levels', { schema: { ...byId, body: newLevelBody } }, async (request) =>
    await setLevel(request, request.params.id, request.body.location_id, request.body.stocked_quantity, request.query.fields))

  app.post(
    '/admin/inventory-items/:id/location-levels/:location_id', { schema: { params: levelParams, querystring: fieldsQuery, body: stockedQuantityBody } },
    async (request) =>
      await setLevel(request, request.params.id, request.params.location_id, request.body.stocked_quantity, request.query.fields)
  )

  // Members of the staff's clubs; and a guest (the customer a cart's email makes, as in Medusa, whose admins see
  // every customer) once it has an order in the staff's channels, so that a member's guest orders can be found.
  const visibleCustomer = async (scope: Scope, c: CustomerDoc): Promise<boolean> =>
    clubsOf(c).some((t) => scope.actor.tenants.includes(t)) ||
    (!c.has_account && await hasOrderIn(ctx, c.id, scope.channelIds))

  const customerListQuery = listQuery(20).extend({ q: z.string().optional(), email: filterValues, has_account: z.enum(['true', 'false']).optional() })

  app.get('/admin/customers', { schema: { querystring: customerListQuery } }, async (request) => {
    const q = request.query
    const scope = await scopeOf(request)
    if (!q.email?.length) {
      const { customers, count } = await customersOfClubs(ctx, scope.actor.tenants, q, q)
      return paged('customers', customers.map(customerView), count, q)
    }
    const matching = (await customersWithEmails(ctx, q.email)).filter(matchesCustomer(q))
    const visible = await Promise.all(matching.map((c) => visibleCustomer(scope, c)))
    return many('customers', matching.filter((_, i) => visible[i]).map(customerView), q)
  })

  const visibleCustomerOf = async (request: FastifyRequest, id: string) => {
    const scope = await scopeOf(request)
    const customer = await getCustomer(ctx, id)
    if (!await visibleCustomer(scope, customer)) throw notFound(`Customer with id: ${id} was not found`)
    return customer
  }

  app.post('/admin/customers', { schema: { querystring: fieldsQuery, body: createCustomerBody } }, async (request) => {
    const scope = await scopeOf(request)
    // Embedded only: staff register members into their own clubs.
    const clubs = request.body.metadata?.clubs
    if (Array.isArray(clubs) && clubs.some((c) =>
      typeof c !== 'string' || !scope.actor.tenants.includes(c))) throw invalidData('Customers are registered only into your own clubs')
    return one('customer', customerView(await createAdminCustomer(ctx, request.body)), request.query.fields)
  })

  app.get('/admin/customers/:id', { schema: byId }, async (request) =>
    one('customer', customerView(await visibleCustomerOf(request, request.params.id)), request.query.fields))

  app.post('/admin/customers/:id', { schema: { ...byId, body: updateCustomerBody } }, async (request) => {
    const customer = await visibleCustomerOf(request, request.params.id)
    return one('customer', customerView(await updateCustomer(ctx, customer.id, request.body)), request.query.fields)
  })

  app.get('/admin/users/me', async (request) => ({ user: userView(await getUser(ctx, actorOf(request).id)) }))

  app.get('/admin/regions', { schema: { querystring: listQuery(20) } }, async (request) =>
    many('regions', (await listRegions(ctx)).map(regionView), request.query))

  app.get('/admin/regions/:id', { schema: byId }, async (request) =>
    one('region', regionView(await getRegion(ctx, request.params.id)), request.query.fields))

  app.get('/admin/sales-channels', { schema: { querystring: listQuery(20) } }, async (request) =>
    many('sales_channels', (await channelsOfTenants(ctx, actorOf(request).tenants)).map(salesChannelView), request.query))

  app.get('/admin/api-keys', { schema: { querystring: listQuery(20) } }, async (request) => {
    const channels = await channelsOfTenants(ctx, actorOf(request).tenants)
    const keys = (await listApiKeys(ctx)).filter((k) => k.sales_channel_ids.some((c) => channels.some((ch) => ch.id === c)))
    return many('api_keys', keys.map((k) => apiKeyView(k, channels.filter((c) => k.sales_channel_ids.includes(c.id)))), request.query)
  })

  app.get('/admin/stock-locations', { schema: { querystring: listQuery(20) } }, async (request) => {
    const scope = await scopeOf(request)
    const channels = await channelsOfTenants(ctx, scope.actor.tenants)
    const locations = (await listStockLocations(ctx)).filter((l) => scope.locationIds.includes(l.id))
    return many('stock_locations', locations.map((l) => stockLocationView(l, channels.filter((c) => l.sales_channel_ids.includes(c.id)))), request.query)
  })

  app.get('/admin/stock-locations/:id', { schema: byId }, async (request) => {
    const { id } = request.params
    const scope = await scopeOf(request)
    const location = (await listStockLocations(ctx)).find((l) => l.id === id && scope.locationIds.includes(l.id))
    if (!location) throw notFound(`Stock location with id: ${id} was not found`)
    const channels = await channelsOfTenants(ctx, scope.actor.tenants)
    return one('stock_location', stockLocationView(location, channels.filter((c) => location.sales_channel_ids.includes(c.id))), request.query.fields)
  })

  app.get('/admin/shipping-options', { schema: { querystring: listQuery(20).extend({ stock_location_id: filterValues }) } }, async (request) => {
    const q = request.query
    const scope = await scopeOf(request)
    const locations = new Map((await listStockLocations(ctx)).map((l) => [l.id, l]))
    const options = (await listShippingOptions(ctx)).filter((o) => scope.locationIds.includes(o.stock_location_id) &&
      (!q.stock_location_id?.length || q.stock_location_id.includes(o.stock_location_id)))
    return many('shipping_options', options.map((o) => shippingOptionView(o, locations.get(o.stock_location_id))), q)
  })
}
