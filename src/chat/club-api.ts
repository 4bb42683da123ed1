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

const failureOf = (status: number): Failure =>
  status === 401 ? 'auth' : status === 400 || status === 409 || status === 422 ? 'rejected' : 'unavailable'

export class ClubApi {
  constructor (private readonly app: FastifyInstance) {}

  private async request<T> (caller: Caller | undefined, method: 'GET' | 'POST' | 'DELETE', url: string, schema: z.ZodType<T>, payload?: object): Promise<Result<T>> {
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

  // Calls of the bot's search, cart editing and repeat order.

  /** The club's whole catalog (up to CATALOG_MAX products), for a search by words. */
  async catalog (caller: Caller): Promise<Result<Product[]>> {
    const products: Product[] = []
    for (let offset = 0; offset < CATALOG_MAX; offset += CATALOG_PAGE) {
      const page = await this.products(caller, offset, CATALOG_PAGE)
      if (!page.ok) return page
      products.push(...page.value.products)
      if (offset + CATALOG_PAGE >= page.value.count) break
    }
    return { ok: true, value: products }
  }

  /** The variant's line at exactly `quantity` (0 removes it): fewer is a removal and a fresh add. */
  async setLine (caller: Caller, cartId: string, variantId: string, quantity: number): Promise<Result<string>> {
    const cart = encodeURIComponent(cartId)
    const current = await this.request(caller, 'GET', `/store/carts/${cart}`, cartResponse)
    if (!current.ok) return current
    const lines = current.value.cart.items.filter((i) => i.variantId === variantId)
    const held = lines.reduce((sum, i) => sum + i.quantity, 0)
    if (held === quantity) return { ok: true, value: cartId }
    if (quantity > held) return await this.addToCart(caller, cartId, variantId, quantity)
    for (const line of lines) {
      const removed = await this.request(caller, 'DELETE', `/store/carts/${cart}/line-items/${encodeURIComponent(line.id)}`, cartResponse)
      if (!removed.ok) return removed
    }
    return quantity > 0 ? await this.addToCart(caller, cartId, variantId, quantity) : { ok: true, value: cartId }
  }

  /** The lines of the member's latest order; undefined when they have none. An admin's list is the club's: theirs is asked for. */
  async lastOrderLines (caller: Caller, customerId: string): Promise<Result<Array<{ variantId: string, title: string, quantity: number }> | undefined>> {
    const own = caller.role === 'admin' ? `&customer_id=${encodeURIComponent(customerId)}` : ''
    const list = await this.request(caller, 'GET', `/api/orders?limit=1${own}`, z.object({ orders: z.array(z.object({ id: z.string() })) }))
    if (!list.ok) return list
    const [latest] = list.value.orders
    if (!latest) return { ok: true, value: undefined }
    const order = await this.request(caller, 'GET', `/api/orders/${encodeURIComponent(latest.id)}`, orderLines)
    return order.ok ? { ok: true, value: order.value.order.items } : order
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
        // null: not tracked upstream, always orderable
        stock: v.inventoryQuantity === null || v.inventoryQuantity === undefined ? null : Math.max(0, v.inventoryQuantity),
      }
    }),
  }
}

const cartResponse = z.object({ cart: z.object({ id: z.string(), items: z.array(z.object({ id: z.string(), variantId: z.string(), quantity: z.number() })).default([]) }) })
const orderLines = z.object({ order: z.object({ items: z.array(z.object({ variantId: z.string(), title: z.string(), quantity: z.number() })) }) })
const CATALOG_PAGE = 100
const CATALOG_MAX = 500
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
