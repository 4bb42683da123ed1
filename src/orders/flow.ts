import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { Actor } from '../auth/actor.ts'
import { AppError, conflict } from '../errors.ts'
import { activity, authorOf } from './activity.ts'
import type { IdempotencyStore } from './idempotency.ts'
import type { Medusa } from '../commerce/medusa.ts'
import { capturePayments, customerIdsWithEmail, fulfillItems, shipFulfillment, type OrdersService } from './service.ts'
import { answerLost, chooseShipping, PAYMENT_METHODS, startPayment } from './storefront.ts'
import { completerOf, type UnsettledStore } from './unsettled.ts'
import type { Activity, Order } from './schemas.ts'
import type { UpstreamCart, UpstreamOrder } from '../commerce/upstream.ts'
import { quotaMetadata, type OrderQuota } from './dispense.ts'

// The one-call order (spec: POST /api/orders/create-and-process): nine steps in order, each reported as it
// starts. Once the order exists, a failing step is written to its activity log before the error goes out.

export const STEP_PROGRESS = {
  creating_cart: 10,
  adding_items: 25,
  configuring_shipping: 40,
  initializing_payment: 55,
  completing_cart: 65,
  capturing_payment: 75,
  creating_fulfillment: 85,
  shipping_order: 95,
  completed: 100,
} as const
export type StepName = keyof typeof STEP_PROGRESS

const STEP_MESSAGES: Record<StepName, string> = {
  creating_cart: 'Creating cart',
  adding_items: 'Adding items',
  configuring_shipping: 'Configuring shipping',
  initializing_payment: 'Initializing payment',
  completing_cart: 'Completing cart',
  capturing_payment: 'Capturing payment',
  creating_fulfillment: 'Creating fulfillment',
  shipping_order: 'Shipping order',
  completed: 'Order completed',
}

export const createAndProcessBody = z.object({
  customer: z.object({
    id: z.string().min(1).optional(),
    email: z.email(),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
  }),
  items: z.array(z.object({ variantId: z.string().min(1), quantity: z.number().int().positive().max(10_000) })).min(1).max(100),
  shippingMethod: z.enum(['pickup', 'delivery']),
  paymentMethod: z.enum(PAYMENT_METHODS),
  locationId: z.string().min(1).optional(),
  notes: z.string().max(2000).optional(),
})
export type CreateAndProcessInput = z.infer<typeof createAndProcessBody>

export const TIMELINE_ACTIONS = ['ORDER_CREATED', 'PAYMENT_CAPTURED', 'FULFILLMENT_CREATED', 'ORDER_SHIPPED'] as const
interface TimelineEntry { action: typeof TIMELINE_ACTIONS[number], timestamp: string }

export interface StepEvent { step: StepName, message: string, progress: number }

export type FlowOutcome =
  | { ok: true, order: Order, timeline: TimelineEntry[] }
  | { ok: false, status: number, error: { code: string, message: string, details?: Record<string, unknown> }, orderId?: string }

function asAppError (err: unknown): AppError {
  return err instanceof AppError ? err : new AppError('INTERNAL_ERROR', 'Internal server error')
}

/** What the one-call order does once the order exists: the dispensation and its record (src/orders/handover.ts). */
export interface Dispenser {
  recordDispensation: (actor: Actor, order: UpstreamOrder, ms: number) => Promise<unknown>
}

/**
 * `unsettled`: where the cart is noted from its reservation until the outcome is known (the order made and
 * dispensed, or refused); a step whose answer was lost leaves it for StoreFront.settle to read back.
 */
export async function createAndProcess (orders: OrdersService, dispenser: Dispenser, actor: Actor, input: CreateAndProcessInput, onStep: (e: StepEvent) => void,
  unsettled: UnsettledStore): Promise<FlowOutcome> {
  const medusa = orders.medusa(actor)
  const author = authorOf(actor)
  const events: Activity[] = []
  const timeline: TimelineEntry[] = []
  const mark = (action: TimelineEntry['action']) => timeline.push({ action, timestamp: new Date().toISOString() })
  let orderId: string | undefined
  let quota: OrderQuota | undefined
  let cartId = ''
  let dispensed = false
  let current: StepName = 'creating_cart'
  const step = (name: StepName) => {
    current = name
    onStep({ step: name, message: STEP_MESSAGES[name], progress: STEP_PROGRESS[name] })
  }

  try {
    step('creating_cart')
    orders.dispense.dispensing.checkShipping(actor.tenant, input.shippingMethod)
    if (input.customer.id) await checkMemberId(medusa, input.customer.id, input.customer.email)
    if (input.locationId) await checkLocation(medusa, input.locationId)
    const memberId = input.customer.id ?? (await customerIdsWithEmail(medusa, input.customer.email))[0] ?? input.customer.email.toLowerCase()
    const cart = await medusa.createCart(input.customer.email)
    cartId = cart.id
    await nameCart(medusa, cart, input.customer)
    step('adding_items')
    // the member's caps are checked (and the grams reserved) before anything is added: a refused order makes nothing more
    quota = await orders.dispense.reserveCart(
      actor, memberId, { id: cart.id, items: input.items.map((i) => ({ variant_id: i.variantId, quantity: i.quantity })) }, input.shippingMethod
    )
    await unsettled.note(actor.tenant.id, { cartId: cart.id, memberId, holdId: quota.holdId, by: completerOf(actor), at: Date.now() })
    await Promise.all(input.items.map((i) => medusa.addLineItem(cart.id, i.variantId, i.quantity)))
    step('configuring_shipping')
    await chooseShipping(medusa, cart.id, input.shippingMethod)
    step('initializing_payment')
    await startPayment(medusa, cart, input.paymentMethod)
    step('completing_cart')
    const completed = await medusa.completeCart(cart.id)
    if (completed.type !== 'order') throw conflict('The cart could not be completed')
    orderId = completed.order.id
    // the one call hands the order over: the dispensation is counted and recorded now
    await dispenser.recordDispensation(actor, { ...completed.order, metadata: { ...completed.order.metadata, ...quotaMetadata(quota) } }, Date.now())
    dispensed = true
    events.push(activity('orders:activity.created', 'success', author))
    if (input.notes) events.push(activity('orders:activity.note', 'info', author, input.notes))
    mark('ORDER_CREATED')
    step('capturing_payment')
    await capturePayments(medusa, await medusa.getOrder(orderId))
    events.push(activity('orders:activity.paymentConfirmed', 'success', author))
    mark('PAYMENT_CAPTURED')
    step('creating_fulfillment')
    const fulfillmentId = await fulfillItems(medusa, await medusa.getOrder(orderId), undefined, input.locationId)
    events.push(activity('orders:activity.fulfilled', 'success', author))
    mark('FULFILLMENT_CREATED')
    step('shipping_order')
    await shipFulfillment(medusa, await medusa.getOrder(orderId), fulfillmentId)
    events.push(activity('orders:activity.shipped', 'success', author))
    mark('ORDER_SHIPPED')
    await medusa.completeOrder(orderId)
    events.push(activity('orders:activity.completed', 'success', author))
    const order = await orders.record(actor, orderId, events, quotaMetadata(quota))
    // The upstream order belongs to a guest customer made from the email; the member reads their notifications
    // under their account's id (their token's subject), which the body may name.
    const recipient = { ...order, customerId: input.customer.id ?? order.customerId, shippingMethod: input.shippingMethod }
    await orders.notify(actor, recipient, 'order.placed')
    await orders.notify(actor, recipient, 'order.shipped')
    await orders.notify(actor, recipient, 'order.completed')
    await unsettled.forget(actor.tenant.id, cartId)
    return { ok: true, order, timeline }
  } catch (err) {
    const error = asAppError(err)
    // grams reserved for an order not dispensed go back (a backend that refused, a refusal at the dispensation)
    const lost = answerLost(error)
    if (quota && !dispensed && !lost) await orders.dispense.release(actor.tenant, quota)
    // known: dispensed, or refused; else (an answer lost before the dispensation) the note stays to be read back
    if (quota && (dispensed || !lost)) await unsettled.forget(actor.tenant.id, cartId)
    if (orderId) {
      await recordFailure(orders, actor, orderId, [
        ...events, activity('orders:activity.note', 'error', author, `${current} failed: ${error.message}`)
      ])
    }
    const details = { ...error.details, step: current, ...(orderId ? { orderId } : {}) }
    return { ok: false, status: error.statusCode, error: { code: error.code, message: error.message, details }, ...(orderId ? { orderId } : {}) }
  }
}

/** `customer.id` names who is told about the order: it must be a customer of the club's backend with `customer.email`. */
async function checkMemberId (medusa: Medusa, id: string, email: string): Promise<void> {
  if ((await customerIdsWithEmail(medusa, email)).includes(id)) return
  throw new AppError('VALIDATION_ERROR', 'customer.id is not a customer with customer.email', {
    status: 422,
    details: { errors: { 'customer.id': [`must be the account of ${email} in this club's commerce backend`] } },
  })
}

/**
 * The names go on the cart's shipping address, the Medusa v2 way: a cart made from an email has none (nor has the
 * guest customer made for it), and the order keeps the address. The address is replaced whole, so the country
 * the cart already carries (its region's only one) is sent again.
 */
async function nameCart (medusa: Medusa, cart: UpstreamCart, customer: CreateAndProcessInput['customer']): Promise<void> {
  if (!customer.firstName && !customer.lastName) return
  const country = cart.shipping_address?.country_code
  await medusa.updateCart(cart.id, {
    shipping_address: {
      ...(customer.firstName ? { first_name: customer.firstName } : {}),
      ...(customer.lastName ? { last_name: customer.lastName } : {}),
      ...(country ? { country_code: country } : {}),
    },
  })
}

/**
 * `locationId` must be a stock location serving the club's sales channel. Checked before anything is made: the
 * backend would refuse it only at the fulfillment, leaving a paid order unfulfilled.
 */
async function checkLocation (medusa: Medusa, locationId: string): Promise<void> {
  if (locationId === medusa.settings.stockLocationId) return
  const location = await medusa.getStockLocation(locationId).catch((err: unknown) => {
    if (err instanceof AppError && err.statusCode === 404) return undefined
    throw err
  })
  if (location?.sales_channels?.some((c) => c.id === medusa.settings.salesChannelId)) return
  throw new AppError('VALIDATION_ERROR', `Stock location ${locationId} does not serve this club`, {
    status: 422,
    details: { errors: { locationId: ['must be a stock location of this club'] } },
  })
}

/** Writes what happened to the order's log; when even that fails, the log line is the record. */
async function recordFailure (orders: OrdersService, actor: Actor, orderId: string, events: Activity[]): Promise<void> {
  try {
    await orders.record(actor, orderId, events)
  } catch (err) {
    orders.log.error({ orderId, tenantId: actor.tenant.id, events, err }, 'one-call order failed part way and its activity log could not be written')
  }
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

/** Runs the flow once per tenant and Idempotency-Key: a retry gets the first outcome back. */
export async function runOnce (
  store: IdempotencyStore, tenantId: string, key: string | undefined, input: CreateAndProcessInput, run: () => Promise<FlowOutcome>
): Promise<FlowOutcome> {
  if (key === undefined) return await run()
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new AppError('VALIDATION_ERROR', 'Invalid Idempotency-Key header', {
      details: { errors: { 'Idempotency-Key': ['1 to 255 visible ASCII characters'] } }
    })
  }
  const fingerprint = createHash('sha256').update(JSON.stringify(input)).digest('hex')
  const found = await store.claim(tenantId, key, fingerprint)
  if (found?.fingerprint !== undefined && found.fingerprint !== fingerprint) throw conflict('This Idempotency-Key was used with a different request body')
  if (found?.state === 'running') throw conflict('A request with this Idempotency-Key is still being processed')
  if (found?.state === 'done') return found.body as FlowOutcome
  let outcome: FlowOutcome
  try {
    outcome = await run()
  } catch (err) {
    await store.release(tenantId, key)
    throw err
  }
  // A failure before the order existed made nothing upstream worth keeping: let a retry run again.
  if (outcome.ok || outcome.orderId) await store.finish(tenantId, key, { state: 'done', fingerprint, status: outcome.ok ? 200 : outcome.status, body: outcome })
  else await store.release(tenantId, key)
  return outcome
}
