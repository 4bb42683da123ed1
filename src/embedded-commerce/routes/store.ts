import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { invalidData, notFound, parseInput } from '../errors.ts'
import { actorFrom, registrationIdentity } from '../tokens.ts'
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
import { filterValues, getOrder, ordersOfCustomer, sortOrders } from '../services/orders.ts'
import { channelsOfKey, getRegion, listRegions, listStockLocations, tenantOf } from '../services/setup.ts'
import { renderCart, renderOrder, renderOrders, renderProducts } from './render.ts'
import { fieldsQuery, idParams, listQuery, many, one, paged, query, requireActor, select, type RouteDeps } from './shared.ts'

/** Medusa narrows a store list to the sales channels asked for, each of which must be one of the publishable key's. */
function channelsAsked (keyChannels: string[], asked: string[] | undefined): string[] {
  if (!asked?.length) return keyChannels
  if (asked.some((c) => !keyChannels.includes(c))) throw invalidData('Requested sales channel is not part of the publishable key')
  return asked
}

const cartParams = z.object({ id: z.string().min(1) })
const lineParams = cartParams.extend({ line_id: z.string().min(1) })

// /store/*: every call carries a publishable key, whose sales channels scope what it sees.
export async function storeRoutes (app: FastifyInstance, { ctx }: RouteDeps): Promise<void> {
  app.addHook('onRequest', async (request) => {
    const header = request.headers['x-publishable-api-key']
    request.commerceChannels = await channelsOfKey(ctx, Array.isArray(header) ? header[0] : header)
    // Registration carries a registration token (no customer yet), which that route checks itself.
    const registering = request.method === 'POST' && request.routeOptions.url === '/store/customers'
    request.commerceActor = registering ? undefined : await actorFrom(ctx.jwtSecret, request.headers.authorization)
  })

  const locationsOf = async (channelIds: readonly string[]): Promise<string[]> =>
    (await listStockLocations(ctx)).filter((l) => l.sales_channel_ids.some((c) => channelIds.includes(c))).map((l) => l.id)

  app.get('/store/regions', async (request) => {
    const q = query(listQuery(50), request)
    return many('regions', (await listRegions(ctx)).map(regionView), q)
  })

  app.get('/store/regions/:id', async (request) => {
    const { id } = parseInput(idParams, request.params)
    return one('region', regionView(await getRegion(ctx, id)), query(fieldsQuery, request).fields)
  })

  const productQuery = listQuery(50).extend({ region_id: z.string().optional(), q: z.string().optional(), id: filterValues, handle: filterValues, sales_channel_id: filterValues })

  app.get('/store/products', async (request) => {
    const q = query(productQuery, request)
    const channels = channelsAsked(request.commerceChannels, q.sales_channel_id)
    const region = q.region_id ? await getRegion(ctx, q.region_id) : undefined
    const products = (await listProducts(ctx)).filter((p) => p.status === 'published' &&
      p.sales_channel_ids.some((c) => channels.includes(c)) &&
      matchesQuery(p, q.q) &&
      (!q.id?.length || q.id.includes(p.id)) &&
      (!q.handle?.length || q.handle.includes(p.handle)))
    return many('products', await renderProducts(ctx, products, await locationsOf(channels), region?.currency_code), q)
  })

  app.get('/store/products/:id', async (request) => {
    const { id } = parseInput(idParams, request.params)
    const q = query(fieldsQuery.extend({ region_id: z.string().optional() }), request)
    const product = await getProduct(ctx, id)
    if (product.status !== 'published' || !product.sales_channel_ids.some((c) => request.commerceChannels.includes(c))) throw notFound(`Product with id: ${id} was not found`)
    const region = q.region_id ? await getRegion(ctx, q.region_id) : undefined
    const [view] = await renderProducts(ctx, [product], await locationsOf(request.commerceChannels), region?.currency_code)
    return one('product', view, q.fields)
  })

  app.get('/store/payment-providers', async (request) => {
    const q = query(listQuery(20).extend({ region_id: z.string().min(1) }), request)
    const region = await getRegion(ctx, q.region_id)
    return many('payment_providers', region.payment_providers.map((id) => ({ id, is_enabled: true })), q)
  })

  app.get('/store/shipping-options', async (request) => {
    const q = query(fieldsQuery.extend({ cart_id: z.string().min(1) }), request)
    const cart = await cartOfChannels(ctx, q.cart_id, request.commerceChannels)
    const locations = new Map((await listStockLocations(ctx)).map((l) => [l.id, l]))
    const options = (await shippingOptionsFor(ctx, cart)).map((o) => shippingOptionView(o, locations.get(o.stock_location_id)))
    return { shipping_options: options.map((o) => select(o, q.fields)) }
  })

  const cartAnswer = async (cart: Parameters<typeof renderCart>[1], fields: string | undefined) => one('cart', await renderCart(ctx, cart), fields)
  const ownCart = async (request: { params: unknown, commerceChannels: string[] }) => {
    const { id } = parseInput(cartParams, request.params)
    await cartOfChannels(ctx, id, request.commerceChannels)
    return id
  }

  app.post('/store/carts', async (request) => {
    const cart = await createCart(ctx, request.commerceChannels, request.commerceActor, request.body)
    return await cartAnswer(cart, query(fieldsQuery, request).fields)
  })

  app.get('/store/carts/:id', async (request) => {
    const { id } = parseInput(cartParams, request.params)
    return await cartAnswer(await cartOfChannels(ctx, id, request.commerceChannels), query(fieldsQuery, request).fields)
  })

  app.post('/store/carts/:id', async (request) => {
    const id = await ownCart(request)
    return await cartAnswer(await updateCart(ctx, id, request.commerceActor, request.body), query(fieldsQuery, request).fields)
  })

  app.post('/store/carts/:id/line-items', async (request) => {
    const id = await ownCart(request)
    return await cartAnswer(await addLineItem(ctx, id, request.body), query(fieldsQuery, request).fields)
  })

  app.post('/store/carts/:id/line-items/:line_id', async (request) => {
    const { line_id: lineId } = parseInput(lineParams, request.params)
    const id = await ownCart(request)
    return await cartAnswer(await updateLineItem(ctx, id, lineId, request.body), query(fieldsQuery, request).fields)
  })

  app.delete('/store/carts/:id/line-items/:line_id', async (request) => {
    const { line_id: lineId } = parseInput(lineParams, request.params)
    const id = await ownCart(request)
    const cart = await deleteLineItem(ctx, id, lineId)
    return { id: lineId, object: 'line-item', deleted: true, parent: await renderCart(ctx, cart) }
  })

  app.post('/store/carts/:id/shipping-methods', async (request) => {
    const id = await ownCart(request)
    return await cartAnswer(await addShippingMethod(ctx, id, request.body), query(fieldsQuery, request).fields)
  })

  app.post('/store/carts/:id/complete', async (request) => {
    const { id } = parseInput(cartParams, request.params)
    const order = await completeCart(ctx, request.commerceChannels, id)
    return { type: 'order', ...one('order', await renderOrder(ctx, order), query(fieldsQuery, request).fields) }
  })

  app.post('/store/payment-collections', async (request) => {
    return { payment_collection: collectionShortView(await paymentCollectionFor(ctx, request.commerceChannels, request.body)) }
  })

  app.post('/store/payment-collections/:id/payment-sessions', async (request) => {
    const { id } = parseInput(idParams, request.params)
    return { payment_collection: collectionShortView(await startPaymentSession(ctx, request.commerceChannels, id, request.body)) }
  })

  app.post('/store/customers', async (request) => {
    const registration = await registrationIdentity(ctx.jwtSecret, request.headers.authorization)
    const channels = (await ctx.store.getMany('sales_channel', request.commerceChannels)).map((c) => c.doc)
    const clubs = [...new Set(channels.flatMap((c) => tenantOf(c) ?? []))]
    return { customer: customerView(await createCustomer(ctx, registration, clubs, request.body)) }
  })

  app.get('/store/customers/me', async (request) => {
    const actor = requireActor(request, 'customer')
    return one('customer', customerView(await getCustomer(ctx, actor.id)), query(fieldsQuery, request).fields)
  })

  app.post('/store/customers/me', async (request) => {
    const actor = requireActor(request, 'customer')
    const body = parseInput(z.object({ first_name: z.string().nullish(), last_name: z.string().nullish(), phone: z.string().nullish() }), request.body)
    return one('customer', customerView(await updateCustomer(ctx, actor.id, body)), query(fieldsQuery, request).fields)
  })

  app.get('/store/orders', async (request) => {
    const actor = requireActor(request, 'customer')
    const q = query(listQuery(20).extend({ status: filterValues }), request)
    const orders = (await ordersOfCustomer(ctx, actor.id))
      .filter((o) => request.commerceChannels.includes(o.sales_channel_id) && (!q.status?.length || q.status.includes(o.status)))
    const sorted = sortOrders(orders, q.order)
    return paged('orders', await renderOrders(ctx, sorted.slice(q.offset, q.offset + q.limit)), sorted.length, q)
  })

  app.get('/store/orders/:id', async (request) => {
    const { id } = parseInput(idParams, request.params)
    const order = await getOrder(ctx, id)
    const actor = request.commerceActor
    const foreign = actor?.type === 'customer' && order.customer_id !== actor.id
    if (foreign || !request.commerceChannels.includes(order.sales_channel_id)) throw notFound(`Order id not found: ${id}`)
    return one('order', await renderOrder(ctx, order), query(fieldsQuery, request).fields)
  })
}
