import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { optionalBody, pageQuery } from '../schemas/common.ts'
import { STOCK_READERS, type InventoryService } from './inventory.ts'
import {
  activitySchema, FULFILLMENT_STATUSES, inventoryLevelSchema, ORDER_STATUSES, orderSchema, orderSummarySchema, PAYMENT_STATUSES,
} from './schemas.ts'
import { ORDER_MANAGERS, type OrdersService } from './service.ts'
import { HANDOVER_STAFF, type HandoverService } from './handover.ts'
import { ledgerEntrySchema } from '../dispensing/ledger/chain.ts'
import { errorResponses } from '../schemas/common.ts'

// /api/orders and /api/inventory: the club's orders and its stock, both read from its commerce backend.

export interface OrderRoutesOptions {
  orders: OrdersService
  inventory: InventoryService
  handover: HandoverService
}

const orderParams = z.object({ orderId: z.string().min(1).max(200) })
const orderAnswer = z.object({ order: orderSchema })

export async function orderRoutes (fastify: FastifyInstance, opts: OrderRoutesOptions) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { orders, inventory } = opts
  const anyone = app.guard()
  const admin = app.guard({ roles: ORDER_MANAGERS })
  const tags = ['orders']

  app.get('/api/orders', {
    onRequest: anyone,
    schema: {
      tags,
      summary: 'List the club\'s orders (anyone but an admin sees only their own)',
      querystring: pageQuery(10).extend({
        status: z.enum(ORDER_STATUSES).optional(),
        fulfillment_status: z.enum(FULFILLMENT_STATUSES).optional(),
        payment_status: z.enum(PAYMENT_STATUSES).optional(),
        customer_id: z.string().min(1).optional(),
      }),
      response: { 200: z.object({ orders: z.array(orderSummarySchema), count: z.number(), offset: z.number(), limit: z.number() }) },
    },
  }, async (request) => {
    const q = request.query
    const { orders: list, count } = await orders.list(request.actor, {
      limit: q.limit,
      offset: q.offset,
      status: q.status,
      fulfillmentStatus: q.fulfillment_status,
      paymentStatus: q.payment_status,
      customerId: q.customer_id,
    })
    return { orders: list, count, offset: q.offset, limit: q.limit }
  })

  app.get('/api/orders/:orderId', {
    onRequest: anyone,
    schema: {
      tags,
      summary: 'An order with its items, payment and fulfillments (a member sees only their own: else 404)',
      params: orderParams,
      response: { 200: orderAnswer }
    },
  }, async (request) => ({ order: await orders.get(request.actor, request.params.orderId) }))

  app.get('/api/orders/:orderId/activities', {
    onRequest: anyone,
    schema: {
      tags, summary: 'What happened to the order, oldest first', params: orderParams, response: { 200: z.object({ activities: z.array(activitySchema) }) }
    },
  }, async (request) => ({ activities: await orders.activities(request.actor, request.params.orderId) }))

  app.post('/api/orders/:orderId/capture', {
    onRequest: admin,
    schema: { tags, summary: 'Capture the order\'s payment', params: orderParams, response: { 200: orderAnswer } },
  }, async (request) => ({ order: await orders.capture(request.actor, request.params.orderId) }))

  app.post('/api/orders/:orderId/fulfill', {
    onRequest: admin,
    schema: {
      tags,
      summary: 'Fulfill items (default: all that remain) from a stock location (default: the club\'s)',
      params: orderParams,
      body: optionalBody(z.object({
        items: z.array(z.object({ id: z.string().min(1), quantity: z.number().int().positive() })).min(1).max(200).optional(),
        locationId: z.string().min(1).optional(),
      })),
      response: { 200: orderAnswer.extend({ fulfillmentId: z.string() }) },
    },
  }, async (request) => {
    const { items, locationId } = request.body
    return await orders.fulfill(request.actor, request.params.orderId, items, locationId)
  })

  app.post('/api/orders/:orderId/ship', {
    onRequest: admin,
    schema: {
      tags,
      summary: 'Ship a fulfillment of the order (its fulfillmentId from /fulfill)',
      params: orderParams,
      body: z.object({ fulfillmentId: z.string().min(1) }),
      response: { 200: orderAnswer }
    },
  }, async (request) => ({ order: await orders.ship(request.actor, request.params.orderId, request.body.fulfillmentId) }))

  app.post('/api/orders/:orderId/cancel', {
    onRequest: admin,
    schema: {
      tags,
      summary: 'Cancel an order not yet shipped (else 409); an optional reason is kept as the note of the cancellation in the order\'s activity',
      params: orderParams,
      // no body, as before, or {reason}
      body: optionalBody(z.object({ reason: z.string().trim().min(1, 'a reason, or no reason field at all').max(500).optional() })),
      response: { 200: orderAnswer, ...errorResponses },
    },
  }, async (request) => ({ order: await orders.cancel(request.actor, request.params.orderId, request.body.reason) }))

  app.post('/api/orders/:orderId/invoice', {
    onRequest: admin,
    schema: { tags, summary: 'Mark the order invoiced (once)', params: orderParams, response: { 200: orderAnswer } },
  }, async (request) => ({ order: await orders.invoice(request.actor, request.params.orderId) }))

  app.post('/api/orders/:orderId/handover', {
    onRequest: app.guard({ roles: HANDOVER_STAFF }),
    schema: {
      tags,
      summary: 'Hand the order over at the counter: identity checked, standing and caps checked again now, the dispensing record written, the order completed',
      params: orderParams,
      body: z.object({ identityChecked: z.boolean() }).strict(),
      response: { 200: orderAnswer.extend({ entries: z.array(ledgerEntrySchema) }), ...errorResponses },
    },
  }, async (request) => await opts.handover.handover(request.actor, request.params.orderId, request.body.identityChecked))

  app.get('/api/inventory', {
    onRequest: app.guard({ roles: STOCK_READERS }),
    schema: {
      tags: ['inventory'],
      summary: 'Stock at the club\'s stock location',
      querystring: pageQuery(20),
      response: { 200: z.object({ items: z.array(inventoryLevelSchema), count: z.number(), offset: z.number(), limit: z.number() }) },
    },
  }, async (request) => {
    const { limit, offset } = request.query
    const { items, count } = await inventory.list(request.actor, { limit, offset })
    return { items, count, offset, limit }
  })
}
