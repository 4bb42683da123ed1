import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { optionalBody, pageQuery } from '../schemas/common.ts'
import { cartSchema, orderSchema, productSchema, shippingOptionSchema } from './schemas.ts'
import { PAYMENT_METHODS, type ShopperActor, type StoreFront } from './storefront.ts'

// The member's store front in camelCase (/store/*, the backend's store API as ours): Tenant-id and the member's Bearer token.
// Any role may shop for themselves.

const id = z.string().min(1).max(200)
const cartParams = z.object({ cartId: id })
const cartAnswer = z.object({ cart: cartSchema })

export async function storeRoutes (fastify: FastifyInstance, opts: { store: StoreFront }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { store } = opts
  const onRequest = app.guard()
  const tags = ['store']

  const shopper = async (request: FastifyRequest): Promise<ShopperActor> =>
    await store.shopper(request.actor, request.headers.authorization?.replace(/^Bearer\s+/i, ''))

  app.get('/store/products', {
    onRequest,
    schema: {
      tags,
      summary: 'The club\'s shop: products on sale with their variants',
      querystring: pageQuery(20),
      response: { 200: z.object({ products: z.array(productSchema), count: z.number() }) }
    },
  }, async (request) => await store.products(await shopper(request), request.query))

  app.post('/store/carts', {
    onRequest,
    schema: { tags, summary: 'Open a cart for the caller', body: optionalBody(z.object({ regionId: id.optional() })), response: { 200: cartAnswer } },
  }, async (request) => ({ cart: await store.createCart(await shopper(request), request.body.regionId) }))

  app.get('/store/carts/:cartId', {
    onRequest,
    schema: { tags, summary: 'One of the caller\'s carts (another\'s: 404)', params: cartParams, response: { 200: cartAnswer } },
  }, async (request) => ({ cart: await store.getCart(await shopper(request), request.params.cartId) }))

  app.post('/store/carts/:cartId/line-items', {
    onRequest,
    schema: {
      tags,
      summary: 'Add units of a variant to the cart',
      params: cartParams,
      body: z.object({ variantId: id, quantity: z.number().int().positive().max(10_000) }),
      response: { 200: cartAnswer }
    },
  }, async (request) => ({ cart: await store.addItem(await shopper(request), request.params.cartId, request.body.variantId, request.body.quantity) }))

  app.delete('/store/carts/:cartId/line-items/:lineItemId', {
    onRequest,
    schema: { tags, summary: 'Remove a line from the cart', params: cartParams.extend({ lineItemId: id }), response: { 200: cartAnswer } },
  }, async (request) => ({ cart: await store.removeItem(await shopper(request), request.params.cartId, request.params.lineItemId) }))

  app.get('/store/shipping-options', {
    onRequest,
    schema: {
      tags,
      summary: 'The shipping options open to the cart',
      querystring: z.object({ cartId: id }),
      response: { 200: z.object({ shippingOptions: z.array(shippingOptionSchema) }) }
    },
  }, async (request) => ({ shippingOptions: await store.shippingOptions(await shopper(request), request.query.cartId) }))

  app.post('/store/carts/:cartId/shipping-methods', {
    onRequest,
    schema: { tags, summary: 'Choose a shipping option for the cart', params: cartParams, body: z.object({ optionId: id }), response: { 200: cartAnswer } },
  }, async (request) => ({ cart: await store.addShippingMethod(await shopper(request), request.params.cartId, request.body.optionId) }))

  app.post('/store/carts/:cartId/payment-sessions', {
    onRequest,
    schema: {
      tags, summary: 'Choose how the cart is paid', params: cartParams, body: z.object({ providerId: z.enum(PAYMENT_METHODS) }), response: { 200: cartAnswer }
    },
  }, async (request) => ({ cart: await store.paymentSession(await shopper(request), request.params.cartId, request.body.providerId) }))

  app.post('/store/carts/:cartId/complete', {
    onRequest,
    schema: {
      tags,
      summary: 'Place the order: the cart becomes an order',
      params: cartParams,
      response: { 200: z.object({ type: z.literal('order'), order: orderSchema }) }
    },
  }, async (request) => ({ type: 'order' as const, order: await store.complete(await shopper(request), request.params.cartId) }))
}
