import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { Product, Role } from '../../machines/conversation.types.ts'
import { linkRecordSchema, type LinkRecord } from './linking/link-record.ts'

// The bot is a client of this same server: every call goes through the HTTP layer in process (app.inject) with
// the member's own token and Tenant-id, so it obeys exactly the rules every other client obeys. The shapes of
// the routes it reads (camelCase store front, orders, notifications, crops) live here and nowhere else.

export interface Caller {
  tenantId: string
  token: string
  role: Role
  /** Rate limits count the bot's calls per member, not all members as one loopback client. */
  phone: string
  currency: string
}

export type Failure = 'auth' | 'rejected' | 'unavailable'
export type Result<T> = { ok: true, value: T } | { ok: false, failure: Failure, status: number }

export function mapResult<T, U> (res: Result<T>, f: (value: T) => U): Result<U> {
  return res.ok ? { ok: true, value: f(res.value) } : res
}

/** Stock of a variant whose inventory is not managed upstream: enough for any chat order. */
const UNMANAGED_STOCK = 99

const failureOf = (status: number): Failure =>
  status === 401 ? 'auth' : status === 400 || status === 409 || status === 422 ? 'rejected' : 'unavailable'

export class ClubApi {
  constructor (private readonly app: FastifyInstance) {}

  private async request<T> (caller: Caller | undefined, method: 'GET' | 'POST', url: string, schema: z.ZodType<T>, payload?: object): Promise<Result<T>> {
    const headers: Record<string, string> = caller ? { authorization: `Bearer ${caller.token}`, 'tenant-id': caller.tenantId } : {}
    let res
    try {
      res = await this.app.inject({ method, url, headers, ...(payload ? { payload } : {}), remoteAddress: caller ? `chat:${caller.phone}` : undefined })
    } catch {
      return { ok: false, failure: 'unavailable', status: 500 }
    }
    if (res.statusCode >= 300) return { ok: false, failure: failureOf(res.statusCode), status: res.statusCode }
    const parsed = schema.safeParse(safeJson(res.body))
    if (!parsed.success) {
      this.app.log.error({ url: url.split('?')[0], issues: parsed.error.issues.slice(0, 3) }, 'chat bot: unexpected response shape')
      return { ok: false, failure: 'unavailable', status: res.statusCode }
    }
    return { ok: true, value: parsed.data }
  }

  /** `GET /api/chat/link/{code}`: consumes the code (single use). */
  async consumeLinkCode (code: string) {
    return await this.request(undefined, 'GET', `/api/chat/link/${encodeURIComponent(code)}`, linkRecordSchema)
  }

  async products (caller: Caller, offset: number, limit: number): Promise<Result<{ products: Product[], count: number }>> {
    const res = await this.request(caller, 'GET', `/store/products?limit=${limit}&offset=${offset}`, productList)
    if (!res.ok) return res
    return { ok: true, value: { count: res.value.count, products: res.value.products.map((p) => toProduct(p, caller.currency)) } }
  }

  /**
   * Brings the variant's line to `target`, creating the cart first when there is none yet; the cart id it is in.
   * A target rather than an amount to add: a turn run again (its worker stalled past the lease) adds nothing more.
   */
  async addToCart (caller: Caller, cartId: string | undefined, variantId: string, target: number): Promise<Result<string>> {
    const current = cartId
      ? await this.request(caller, 'GET', `/store/carts/${encodeURIComponent(cartId)}`, cartResponse)
      : await this.request(caller, 'POST', '/store/carts', cartResponse, {})
    if (!current.ok) return current
    const { id, items } = current.value.cart
    const held = items.filter((i) => i.variantId === variantId).reduce((sum, i) => sum + i.quantity, 0)
    if (held >= target) return { ok: true, value: id }
    const added = await this.request(caller, 'POST', `/store/carts/${encodeURIComponent(id)}/line-items`, cartResponse, { variantId, quantity: target - held })
    return added.ok ? { ok: true, value: id } : added
  }

  /** Pickup and cash, then completion: the order placed. */
  async placeOrder (caller: Caller, cartId: string): Promise<Result<{ displayId: string, total: number }>> {
    const cart = encodeURIComponent(cartId)
    const prepared = await this.prepareOrder(caller, cart)
    // A cart completed already (this turn ran before) refuses every step with 409 but its completion, which
    // answers the order it became.
    if (!prepared.ok && prepared.status !== 409) return prepared
    const done = await this.request(caller, 'POST', `/store/carts/${cart}/complete`, completion, {})
    if (!done.ok) return prepared.ok ? done : prepared
    if (done.value.type !== 'order' || !done.value.order) return { ok: false, failure: 'rejected', status: 200 }
    return { ok: true, value: { displayId: String(done.value.order.displayId), total: done.value.order.total } }
  }

  private async prepareOrder (caller: Caller, cart: string): Promise<Result<unknown>> {
    const options = await this.request(caller, 'GET', `/store/shipping-options?cartId=${cart}`, shippingOptions)
    if (!options.ok) return options
    const pickup = options.value.shippingOptions.find((o) => o.name === 'pickup') ?? options.value.shippingOptions[0]
    if (!pickup) return { ok: false, failure: 'unavailable', status: 200 }
    const shipping = await this.request(caller, 'POST', `/store/carts/${cart}/shipping-methods`, cartResponse, { optionId: pickup.id })
    if (!shipping.ok) return shipping
    return await this.request(caller, 'POST', `/store/carts/${cart}/payment-sessions`, z.unknown(), { providerId: 'cash' })
  }

  async orders (caller: Caller) {
    return await this.request(caller, 'GET', '/api/orders?limit=5', orderList)
  }

  async notifications (caller: Caller): Promise<Result<{ unread: number, latest: Array<{ title: string, isRead: boolean }> }>> {
    const [count, list] = await Promise.all([
      this.request(caller, 'GET', '/api/notifications/unread-count', unreadCount),
      this.request(caller, 'GET', '/api/notifications?limit=5', notificationList),
    ])
    if (!count.ok) return count
    if (!list.ok) return list
    return { ok: true, value: { unread: count.value.count, latest: list.value.notifications } }
  }

  async crops (caller: Caller) {
    return await this.request(caller, 'GET', '/api/crops', cropList)
  }
}

function safeJson (body: string): unknown {
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

export type { LinkRecord }

const storeProduct = z.object({
  id: z.string(),
  title: z.string(),
  variants: z.array(z.object({
    id: z.string(),
    title: z.string().nullish(),
    prices: z.array(z.object({ amount: z.number(), currencyCode: z.string() })).default([]),
    inventoryQuantity: z.number().nullish(),
  })).default([]),
})
const productList = z.object({ products: z.array(storeProduct), count: z.number().int() })

function toProduct (p: z.infer<typeof storeProduct>, currency: string): Product {
  return {
    id: p.id,
    title: p.title,
    variants: p.variants.map((v) => {
      const price = v.prices.find((x) => x.currencyCode.toUpperCase() === currency.toUpperCase()) ?? v.prices[0]
      return {
        id: v.id,
        title: v.title ?? p.title,
        price: price?.amount ?? 0,
        stock: Math.max(0, v.inventoryQuantity ?? UNMANAGED_STOCK),
      }
    }),
  }
}

const cartResponse = z.object({ cart: z.object({ id: z.string(), items: z.array(z.object({ variantId: z.string(), quantity: z.number() })).default([]) }) })
const shippingOptions = z.object({ shippingOptions: z.array(z.object({ id: z.string(), name: z.string() })) })
const completion = z.object({
  type: z.string(),
  order: z.object({ id: z.string(), displayId: z.union([z.string(), z.number()]), total: z.number() }).optional(),
})
const orderList = z.object({
  orders: z.array(z.object({ displayId: z.union([z.string(), z.number()]), status: z.string(), total: z.number() })),
})
const unreadCount = z.object({ count: z.number() })
const notificationList = z.object({ notifications: z.array(z.object({ title: z.string(), isRead: z.boolean() })) })
const cropList = z.object({ crops: z.array(z.object({ name: z.string(), status: z.string() })) })
