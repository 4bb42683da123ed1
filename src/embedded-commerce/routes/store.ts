import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { invalidData, notFound } from '../errors.ts'
import type { CartDoc } from '../model.ts'
import {
  createCartBody, createCustomerBody, fieldsQuery, filterValues, idParams, lineItemBody, lineParams, lineQuantityBody, listQuery,
  paymentCollectionBody, paymentSessionBody, shippingMethodBody, updateCartBody, updateMeBody,
} from '../requests.ts'
import { authContextFrom } from '../tokens.ts'
import { regionView } from '../views/common.ts'
import { shippingOptionView } from '../views/catalog.ts'
import { collectionShortView } from '../views/payments.ts'
import { customerView } from '../views/people.ts'
import { createCustomer, getCustomer, updateCustomer } from '../services/accounts.ts'
import {
  addLineItem, addShippingMethod, cartOfChannels, completeCart, createCart, deleteLineItem, paymentCollectionFor, shippingOptionsFor,
  startPaymentSession, updateCart, updateLineItem,
} from '../services/carts.ts'
import { getProduct, listProducts, matchesQuery } from '../services/catalog.ts'
import { getOrder, ordersOfCustomer, sortOrders } from '../services/orders.ts'
import { channelsOfKey, getRegion, listRegions, listStockLocations, tenantOf } from '../services/setup.ts'
import { renderCart, renderOrder, renderOrders, renderProducts } from './render.ts'
import { actorOf, customerOnly, many, one, paged, registeringOnly, registrationOf, select, type RouteDeps } from './shared.ts'

/** Medusa narrows a store list to the sales channels asked for, each of which must be one of the publishable key's. */
function channelsAsked (keyChannels: string[], asked: string[] | undefined): string[] {
  if (!asked?.length) return keyChannels
  if (asked.some((c) => !keyChannels.includes(c))) throw invalidData('Requested sales channel is not part of the publishable key')
  return asked
}

// /store/*: every call carries a publishable key, whose sales channels scope what it sees.
export async function storeRoutes (fastify: FastifyInstance, { ctx }: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  app.addHook('onRequest', async (request) => {
    const header = request.headers['x-publishable-api-key']
    request.commerceChannels = await channelsOfKey(ctx, Array.isArray(header) ? header[0] : header)
    // Registration carries a registration token (no customer yet), which that route checks itself.
    const registering = request.method === 'POST' && request.routeOptions.url === '/store/customers'
    request.commerceActor = registering ? undefined : await authContextFrom(ctx.jwtSecret, request.headers.authorization)
  })

  const locationsOf = async (channelIds: readonly string[]): Promise<string[]> =>
    (await listStockLocations(ctx)).filter((l) => l.sales_channel_ids.some((c) => channelIds.includes(c))).map((l) => l.id)

  app.get('/store/regions', { schema: { querystring: listQuery(50) } }, async (request) =>
    many('regions', (await listRegions(ctx)).map(regionView), request.query))

  app.get('/store/regions/:id', { schema: { params: idParams, querystring: fieldsQuery } }, async (request) =>
    one('region', regionView(await getRegion(ctx, request.params.id)), request.query.fields))

  const productQuery = listQuery(50).extend({
    region_id: z.string().optional(), q: z.string().optional(), id: filterValues, handle: filterValues, sales_channel_id: filterValues
  })

  app.get('/store/products', { schema: { querystring: productQuery } }, async (request) => {
    const q = request.query
    const channels = channelsAsked(request.commerceChannels, q.sales_channel_id)
    const region = q.region_id ? await getRegion(ctx, q.region_id) : undefined
    const products = (await listProducts(ctx)).filter((p) => p.status === 'published' &&
      p.sales_channel_ids.some((c) => channels.includes(c)) &&
      matchesQuery(p, q.q) &&
      (!q.id?.length || q.id.includes(p.id)) &&
      (!q.handle?.length || q.handle.includes(p.handle)))
    return many('products', await renderProducts(ctx, products, await locationsOf(channels), region?.currency_code), q)
  })

  app.get('/store/products/:id', { schema: { params: idParams, querystring: fieldsQuery.extend({ region_id: z.string().optional() }) } }, async (request) => {
    const { id } = request.params
    const q = request.query
    const product = await getProduct(ctx, id)
    if (product.status !== 'published' || !product.sales_channel_ids.some((c) =>
      request.commerceChannels.includes(c))) throw notFound(`Product with id: ${id} was not found`)
    const region = q.region_id ? await getRegion(ctx, q.region_id) : undefined
    const [view] = await renderProducts(ctx, [product], await locationsOf(request.commerceChannels), region?.currency_code)
    return one('product', view, q.fields)
  })

  app.get('/store/payment-providers', { schema: { querystring: listQuery(20).extend({ region_id: z.string().min(1) }) } }, async (request) => {
    const region = await getRegion(ctx, request.query.region_id)
    return many('payment_providers', region.payment_providers.map((id) => ({ id, is_enabled: true })), request.query)
  })

  app.get('/store/shipping-options', { schema: { querystring: fieldsQuery.extend({ cart_id: z.string().min(1) }) } }, async (request) => {
    const q = request.query
    const cart = await cartOfChannels(ctx, q.cart_id, request.commerceChannels)
    const locations = new Map((await listStockLocations(ctx)).map((l) => [l.id, l]))
    const options = (await shippingOptionsFor(ctx, cart)).map((o) => shippingOptionView(o, locations.get(o.stock_location_id)))
    return { shipping_options: options.map((o) => select(o, q.fields)) }
  })

  const cartAnswer = async (cart: CartDoc, fields: string | undefined) => one('cart', await renderCart(ctx, cart), fields)
  /** The id of a cart the request's publishable key may use. */
  const ownCart = async (request: { params: { id: string }, commerceChannels: string[] }): Promise<string> => {
    await cartOfChannels(ctx, request.params.id, request.commerceChannels)
    return request.params.id
  }

  app.post('/store/carts', { schema: { querystring: fieldsQuery, body: createCartBody } }, async (request) =>
    await cartAnswer(await createCart(ctx, request.commerceChannels, request.commerceActor, request.body), request.query.fields))

  app.get('/store/carts/:id', { schema: { params: idParams, querystring: fieldsQuery } }, async (request) =>
    await cartAnswer(await cartOfChannels(ctx, request.params.id, request.commerceChannels), request.query.fields))

  app.post('/store/carts/:id', { schema: { params: idParams, querystring: fieldsQuery, body: updateCartBody } }, async (request) =>
    await cartAnswer(await updateCart(ctx, await ownCart(request), request.commerceActor, request.body), request.query.fields))

  app.post('/store/carts/:id/line-items', { schema: { params: idParams, querystring: fieldsQuery, body: lineItemBody } }, async (request) =>
    await cartAnswer(await addLineItem(ctx, await ownCart(request), request.body), request.query.fields))

  app.post('/store/carts/:id/line-items/:line_id', { schema: { params: lineParams, querystring: fieldsQuery, body: lineQuantityBody } }, async (request) =>
    await cartAnswer(await updateLineItem(ctx, await ownCart(request), request.params.line_id, request.body), request.query.fields))

  app.delete('/store/carts/:id/line-items/:line_id', { schema: { params: lineParams } }, async (request) => {
    const lineId = request.params.line_id
    const cart = await deleteLineItem(ctx, await ownCart(request), lineId)
    return { id: lineId, object: 'line-item', deleted: true, parent: await renderCart(ctx, cart) }
  })

  app.post('/store/carts/:id/shipping-methods', { schema: { params: idParams, querystring: fieldsQuery, body: shippingMethodBody } }, async (request) =>
    await cartAnswer(await addShippingMethod(ctx, await ownCart(request), request.body.option_id), request.query.fields))

  app.post('/store/carts/:id/complete', { schema: { params: idParams, querystring: fieldsQuery } }, async (request) => {
    const order = await completeCart(ctx, request.commerceChannels, request.params.id)
    return { type: 'order', ...one('order', await renderOrder(ctx, order), request.query.fields) }
  })

  app.post('/store/payment-collections', { schema: { body: paymentCollectionBody } }, async (request) =>
    ({ payment_collection: collectionShortView(await paymentCollectionFor(ctx, request.commerceChannels, request.body.cart_id)) }))

  app.post('/store/payment-collections/:id/payment-sessions', { schema: { params: idParams, body: paymentSessionBody } }, async (request) =>
    ({ payment_collection: collectionShortView(await startPaymentSession(ctx, request.commerceChannels, request.params.id, request.body)) }))

  app.post('/store/customers', { preValidation: registeringOnly(ctx, 'customer'), schema: { body: createCustomerBody } }, async (request) => {
    const channels = (await ctx.store.getMany('sales_channel', request.commerceChannels)).map((c) => c.doc)
    const clubs = [...new Set(channels.flatMap((c) => tenantOf(c) ?? []))]
    return { customer: customerView(await createCustomer(ctx, registrationOf(request), clubs, request.body)) }
  })

  app.get('/store/customers/me', { preValidation: customerOnly, schema: { querystring: fieldsQuery } }, async (request) =>
    one('customer', customerView(await getCustomer(ctx, actorOf(request).id)), request.query.fields))

  app.post('/store/customers/me', { preValidation: customerOnly, schema: { querystring: fieldsQuery, body: updateMeBody } }, async (request) =>
    one('customer', customerView(await updateCustomer(ctx, actorOf(request).id, request.body)), request.query.fields))

  app.get('/store/orders', { preValidation: customerOnly, schema: { querystring: listQuery(20).extend({ status: filterValues }) } }, async (request) => {
    const q = request.query
    const orders = (await ordersOfCustomer(ctx, actorOf(request).id))
      .filter((o) => request.commerceChannels.includes(o.sales_channel_id) && (!q.status?.length || q.status.includes(o.status)))
    const sorted = sortOrders(orders, q.order)
    return paged('orders', await renderOrders(ctx, sorted.slice(q.offset, q.offset + q.limit)), sorted.length, q)
  })

  app.get('/store/orders/:id', { schema: { params: idParams, querystring: fieldsQuery } }, async (request) => {
    const { id } = request.params
    const order = await getOrder(ctx, id)
    const actor = request.commerceActor
    const foreign = actor?.type === 'customer' && order.customer_id !== actor.id
    if (foreign || !request.commerceChannels.includes(order.sales_channel_id)) throw notFound(`Order id not found: ${id}`)
    return one('order', await renderOrder(ctx, order), request.query.fields)
  })
}
