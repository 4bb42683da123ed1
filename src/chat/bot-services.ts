import type { FastifyBaseLogger } from 'fastify'
import type { Product, RuleRefusal } from '../../machines/conversation.types.ts'
import { actorFrom, tenantOf, type Actor } from '../auth/actor.ts'
import { verifyAccessToken, type Principal } from '../auth/tokens.ts'
import type { CropService } from '../crops/service.ts'
import type { DispensingService, QuotaView } from '../dispensing/service.ts'
import { AppError } from '../errors.ts'
import type { NotificationService } from '../notifications/service.ts'
import type { Product as StoreProduct } from '../orders/schemas.ts'
import type { OrdersService } from '../orders/service.ts'
import { isOutcomeUnknown, type StoreFront } from '../orders/storefront.ts'
import type { TenantStore } from '../tenants/store.ts'
import { parseLinkCode, type LinkRecord } from './linking/link-record.ts'
import type { LinkCodes, LinkedAccount } from './linking/types.ts'

// The bot calls the club's domain services in process, as the member: the actor comes from the linked account's
// token, checked as `app.guard()` checks a request's, and each service applies the same rules it applies to the
// routes (roles, the member's own orders and carts). Errors come back as the route would have answered them
// (AppError and its status) and are turned into the three outcomes the conversation knows.

/** Whom the bot acts for: the actor, the token sent upstream on their behalf, the phone they write from. */
export interface Behalf {
  actor: Actor
  token: string
  phone: string
}

/** `unknown`: an order's completion whose answer was lost; the order may exist (storefront.ts, outcomeUnknown). */
export type Failure = 'auth' | 'rejected' | 'unavailable' | 'unknown'
export type Result<T> = { ok: true, value: T } | { ok: false, failure: Failure, status: number, refusal?: RuleRefusal }

export function mapResult<T, U> (res: Result<T>, f: (value: T) => U): Result<U> {
  return res.ok ? { ok: true, value: f(res.value) } : res
}

/** How many of each the reports show (the crops report groups them by status). */
const ORDERS_REPORTED = 5
const NOTIFICATIONS_REPORTED = 5
const CROPS_REPORTED = 50
/** Members' tokens kept verified (a few hundred bytes each); past it the oldest is forgotten and checked again when used. */
const VERIFIED_KEPT = 10_000

const failureOf = (status: number): Failure =>
  status === 401 ? 'auth' : status === 400 || status === 409 || status === 422 ? 'rejected' : 'unavailable'

const PERIODS = new Set(['day', 'month', 'year'])

/** A refusal of the club's rules (403 LIMIT_EXCEEDED, or FORBIDDEN naming a reason) in the conversation's terms. */
function ruleRefusalOf (err: AppError): RuleRefusal | undefined {
  const details = err.details ?? {}
  if (err.code === 'LIMIT_EXCEEDED' && typeof details.period === 'string' && PERIODS.has(details.period) && typeof details.remaining === 'number') {
    return { kind: 'limit', period: details.period as 'day' | 'month' | 'year', remaining: details.remaining }
  }
  if (err.code === 'FORBIDDEN' && typeof details.reason === 'string') {
    return { kind: 'standing', reason: details.reason, ...(typeof details.status === 'string' ? { status: details.status } : {}) }
  }
  return undefined
}

export interface BotServicesDeps {
  store: StoreFront
  orders: OrdersService
  notifications: NotificationService
  crops: CropService
  dispensing: DispensingService
  linkCodes: LinkCodes
  tenants: TenantStore
  jwtSecret: string
  log: FastifyBaseLogger
}

export class BotServices {
  /**
   * Tokens this process verified, by token, until they expire. A token's signature and claims never change, so
   * only its expiry can make a second check answer otherwise: a shop turn (every product list and choice) checks
   * that instead of the HMAC again (33 µs of crypto, and a hop to the thread pool). An expired one is verified
   * again, which refuses it as before.
   */
  private readonly verified = new Map<string, Principal>()

  constructor (private readonly deps: BotServicesDeps) {}

  private async principal (token: string): Promise<Principal> {
    const kept = this.verified.get(token)
    // as jose decides: expired once its exp (seconds) is not after now
    if (kept && kept.exp > Math.floor(Date.now() / 1000)) return kept
    this.verified.delete(token)
    const principal = await verifyAccessToken(this.deps.jwtSecret, token)
    if (this.verified.size >= VERIFIED_KEPT) this.verified.delete(this.verified.keys().next().value as string)
    this.verified.set(token, principal)
    return principal
  }

  /** One service call: its answer, or the outcome its error means to the conversation. */
  private async attempt<T> (what: string, call: () => Promise<T>): Promise<Result<T>> {
    try {
      return { ok: true, value: await call() }
    } catch (err) {
      if (err instanceof AppError) {
        if (err.statusCode >= 500) this.deps.log.error({ err, what }, 'chat bot: a club service failed')
        if (isOutcomeUnknown(err)) return { ok: false, failure: 'unknown', status: err.statusCode }
        const refusal = ruleRefusalOf(err)
        if (refusal) return { ok: false, failure: 'rejected', status: err.statusCode, refusal }
        return { ok: false, failure: failureOf(err.statusCode), status: err.statusCode }
      }
      this.deps.log.error({ err, what }, 'chat bot: a club service failed')
      return { ok: false, failure: 'unavailable', status: 500 }
    }
  }

  /** Consumes the code sent from `phone` (single use); a text that is not a code is refused as the route refuses it (400). */
  async consumeLinkCode (code: string, phone: string): Promise<Result<LinkRecord>> {
    const canonical = parseLinkCode(code)
    if (!canonical) return { ok: false, failure: 'rejected', status: 400 }
    return await this.attempt('link code', async () => await this.deps.linkCodes.consume(canonical, phone))
  }

  /** The account's token verified and its club checked, as for a request: an expired or revoked token is 'auth'. */
  async behalf (account: LinkedAccount, phone: string): Promise<Result<Behalf>> {
    return await this.attempt('linked account', async () => {
      const principal = await this.principal(account.token)
      const tenant = await tenantOf(this.deps.tenants, principal, account.tenantId)
      return { actor: actorFrom(principal, tenant), token: account.token, phone }
    })
  }

  /** A page of the club's kept catalog (at most CATALOG_CACHE_MS old: usually no call to the backend). */
  async products (who: Behalf, offset: number, limit: number, ceiling: number | null = null): Promise<Result<{ products: Product[], count: number }>> {
    return await this.attempt('products', async () => {
      const page = await this.deps.store.catalogPage(who.actor, { limit, offset })
      return { count: page.count, products: offered(page.products, ceiling).map((p) => chatProduct(p, who.actor.tenant.currency)) }
    })
  }

  /** One product of the club's kept catalog; undefined when the club does not sell it (or not to this member). */
  async product (who: Behalf, productId: string, ceiling: number | null = null): Promise<Result<Product | undefined>> {
    return await this.attempt('product', async () => {
      const found = await this.deps.store.product(who.actor, productId)
      const [allowed] = found ? offered([found], ceiling) : []
      return allowed && chatProduct(allowed, who.actor.tenant.currency)
    })
  }

  /** What the member has left in each period in force, their status and THC ceiling (one read of their record). */
  async quota (who: Behalf): Promise<Result<QuotaView>> {
    return await this.attempt('quota', async () => await this.deps.dispensing.quotaOf(who.actor.tenant, who.actor.sub))
  }

  /**
   * Brings the variant's line to `target`, creating the cart first when there is none yet; the cart id it is in.
   * A target rather than an amount to add: a turn run again (its worker stalled past the lease) adds nothing more.
   */
  async addToCart (who: Behalf, cartId: string | undefined, variantId: string, target: number): Promise<Result<string>> {
    return await this.attempt('add to cart', async () => {
      const { store } = this.deps
      return (await store.holdAtLeast(await store.shopper(who.actor, who.token), cartId, variantId, target)).id
    })
  }

  /** Pickup and cash, then completion: the order placed (the same order when the cart was completed before). */
  async placeOrder (who: Behalf, cartId: string): Promise<Result<{ displayId: string, total: number }>> {
    return await this.attempt('place order', async () => {
      const { store } = this.deps
      const order = await store.checkout(await store.shopper(who.actor, who.token), cartId, { shipping: 'pickup', payment: 'cash' })
      return { displayId: String(order.displayId), total: order.total }
    })
  }

  // Calls of the bot's search, cart editing and repeat order.

  /** The club's kept catalog (up to CATALOG_MAX products), for a search by words. */
  async catalog (who: Behalf, ceiling: number | null = null): Promise<Result<Product[]>> {
    return await this.attempt('catalog', async () =>
      offered((await this.deps.store.catalog(who.actor)).products, ceiling).map((p) => chatProduct(p, who.actor.tenant.currency)))
  }

  /** Grams one unit of each of the club's variants holds (null: not a controlled product), from the kept catalog. */
  async grams (who: Behalf): Promise<Result<Map<string, number | null>>> {
    return await this.attempt('catalog', async () =>
      new Map((await this.deps.store.catalog(who.actor)).products.flatMap((p) => p.variants.map((v) => [v.id, v.grams] as const))))
  }

  /** The variant's line at exactly `quantity` (0 removes it): fewer is a removal and a fresh add. */
  async setLine (who: Behalf, cartId: string, variantId: string, quantity: number): Promise<Result<string>> {
    return await this.attempt('set cart line', async () => {
      const { store } = this.deps
      await store.setLine(await store.shopper(who.actor, who.token), cartId, variantId, quantity)
      return cartId
    })
  }

  /** The lines of the member's latest order; undefined when they have none. An admin's list is the club's: theirs is asked for. */
  async lastOrderLines (who: Behalf, customerId: string): Promise<Result<Array<{ variantId: string, title: string, quantity: number }> | undefined>> {
    return await this.attempt('last order', async () => {
      const { orders } = this.deps
      const own = who.actor.role === 'admin' ? { customerId } : {}
      const [latest] = (await orders.list(who.actor, { limit: 1, offset: 0, ...own })).orders
      return latest ? (await orders.get(who.actor, latest.id)).items : undefined
    })
  }

  async orders (who: Behalf) {
    return await this.attempt('orders', async () => await this.deps.orders.list(who.actor, { limit: ORDERS_REPORTED, offset: 0 }))
  }

  async notifications (who: Behalf) {
    return await this.attempt('notifications', async () => await this.deps.notifications.summary(who.actor, NOTIFICATIONS_REPORTED))
  }

  async crops (who: Behalf) {
    return await this.attempt('crops', async () => await this.deps.crops.list(who.actor, {}, { limit: CROPS_REPORTED, offset: 0 }))
  }
}

export type { LinkRecord }

/**
 * The products a member under a THC ceiling may receive: a controlled variant (one with grams) above the ceiling,
 * or of unknown THC, is not offered, as the order would be refused; a product left with no variant is not shown.
 */
function offered (products: readonly StoreProduct[], ceiling: number | null): StoreProduct[] {
  if (ceiling === null) return [...products]
  return products.flatMap((p) => {
    const variants = p.variants.filter((v) => v.grams === null || (v.thcPercent !== null && v.thcPercent <= ceiling))
    return variants.length > 0 ? [{ ...p, variants }] : []
  })
}

/** A store product as the conversation shows it: prices in the club's currency, stock that may be ordered. */
export function chatProduct (p: StoreProduct, currency: string): Product {
  return {
    id: p.id,
    title: p.title,
    variants: p.variants.map((v) => {
      const price = v.prices.find((x) => x.currencyCode.toUpperCase() === currency.toUpperCase()) ?? v.prices[0]
      return {
        id: v.id,
        title: v.title || p.title,
        price: price?.amount ?? 0,
        // null: not tracked upstream, always orderable
        stock: v.inventoryQuantity === null ? null : Math.max(0, v.inventoryQuantity),
      }
    }),
  }
}
