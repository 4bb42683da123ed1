import type { UpstreamSessionStore } from '../commerce/sessions.ts'
import type { Actor } from '../auth/actor.ts'
import { AppError, conflict, notFound } from '../errors.ts'
import { activity, authorOf } from './activity.ts'
import { mapCart, mapProduct, mapShippingOption } from './mapping.ts'
import type { Medusa } from '../commerce/medusa.ts'
import { seesEveryOrder, type OrdersService } from './service.ts'
import type { Cart, Order, Product, ShippingOption } from './schemas.ts'
import type { UpstreamCart, UpstreamShippingOption } from '../commerce/upstream.ts'
import { completerOf } from './unsettled.ts'
import type { ResolvedSettings } from '../commerce/settings.ts'
import type { CatalogCache } from '../commerce/catalog-cache.ts'
import { quotaMetadata, type OrderDispensing, type OrderQuota } from './dispense.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import { keys } from '../stores/keys.ts'
import type { Locks } from '../stores/locks.ts'
import type { UpstreamOrder } from '../commerce/upstream.ts'
import type { TenantStore } from '../tenants/store.ts'
import { mapOrder } from './mapping.ts'
import type { Unsettled, UnsettledStore } from './unsettled.ts'

// The member's store front in front of the backend's store API: the member's
// upstream login (or, without one, the caller's own token) rides along with the club's publishable key.

export const PAYMENT_METHODS = ['cash', 'onlinepay', 'transfer'] as const
export type PaymentMethod = typeof PAYMENT_METHODS[number]
const FALLBACK_PROVIDER = 'pp_system_default'

/** An actor at the store front: their club's backend, and the token sent upstream on their behalf. */
export interface ShopperActor extends Actor {
  medusa: Medusa
  upstreamToken: string | undefined
}

/**
 * Opens a payment session with `pp_<method>` when the club's region offers it, else the backend's default
 * provider. `cart` as last read: its payment collection is used, or made when it has none.
 */
export async function startPayment (medusa: Medusa, cart: UpstreamCart, method: PaymentMethod, token?: string): Promise<void> {
  const collectionId = await collectionOf(medusa, cart, token)
  await openSession(medusa, collectionId, method, (await medusa.listPaymentProviders(token)).map((p) => p.id), token)
}

const collectionOf = async (medusa: Medusa, cart: UpstreamCart, token: string | undefined): Promise<string> =>
  cart.payment_collection?.id ?? (await medusa.createPaymentCollection(cart.id, token)).id

/** The session with `pp_<method>` when `providers` (the region's, as read or kept) has it, else the default. */
async function openSession (medusa: Medusa, collectionId: string, method: PaymentMethod, providers: string[], token: string | undefined): Promise<void> {
  const wanted = `pp_${method}`
  await medusa.createPaymentSession(collectionId, providers.includes(wanted) ? wanted : FALLBACK_PROVIDER, token)
}

/** Picks the club's shipping option by its name (`pickup`, `delivery`); `orFirst`: the first offered when that one is not. */
export async function chooseShipping (medusa: Medusa, cartId: string, name: string, token?: string, orFirst = false): Promise<UpstreamCart> {
  return await shipBy(medusa, cartId, name, token, orFirst, await medusa.listShippingOptions(cartId, token))
}

/** The same, among `options` as read for this cart or kept. */
async function shipBy (
  medusa: Medusa, cartId: string, name: string, token: string | undefined, orFirst: boolean, options: UpstreamShippingOption[]
): Promise<UpstreamCart> {
  const option = options.find((o) => o.name?.toLowerCase() === name.toLowerCase()) ?? (orFirst ? options[0] : undefined)
  if (!option) {
    throw new AppError('VALIDATION_ERROR', `Shipping option ${name} is not offered for this cart`, {
      status: 422, details: { errors: { shippingMethod: [`one of ${options.map((o) => o.name).join(', ') || 'none'}`] } }
    })
  }
  return await medusa.addShippingMethod(cartId, option.id, token)
}

/** What a club's kept reads depend on: a club moved to another backend, key, region or channel reads afresh. */
export const settingsKey = (s: ResolvedSettings): string => [s.baseUrl, s.publishableKey, s.regionId, s.salesChannelId].join(' ')

/** How many of a club's products the kept catalog holds, read in one call (the bot's search looks through them). */
const CATALOG_MAX = 500

/** A club's products as the bot browses them: up to CATALOG_MAX of `count`. */
export interface Catalog {
  products: Product[]
  count: number
}

/** A page of the club's products (its sales channel only), as the backend answers it now. */
async function productPage (medusa: Medusa, page: { limit: number, offset: number }, token?: string): Promise<Catalog> {
  // limit=0 still needs the count: ask for one row and drop it.
  const answer = await medusa.listProducts({ limit: Math.max(page.limit, 1), offset: page.offset }, token)
  return { products: answer.products.slice(0, page.limit).map(mapProduct), count: answer.count }
}

/**
 * A call whose answer was lost: the backend may have done it (a 5xx, unreachable, no answer in time). A 4xx, 429
 * included, is a refusal: nothing was done.
 */
export const answerLost = (err: unknown): boolean => !(err instanceof AppError) || err.statusCode >= 500

/** A completion whose outcome is not known yet: 503 with `details.outcome` 'unknown'; settle() finds it out. */
const outcomeUnknown = (cartId: string): AppError => new AppError('SERVICE_UNAVAILABLE',
  'The order may have been placed: the commerce backend did not answer. It is read back shortly; look at your orders before ordering again',
  { details: { outcome: 'unknown', cartId } })

export const isOutcomeUnknown = (err: unknown): boolean => err instanceof AppError && err.details?.outcome === 'unknown'

/** How long after a lost answer the completion is read back, within the request. */
const READ_BACK_PAUSE_MS = 300
/** A completion and its record hold the cart this long at most (a few backend calls, each within its timeout). */
const COMPLETION_LOCK = { ttlMs: 120_000, waitMs: 15_000 }

/** What settling a club's unsettled completions came to. */
export interface Settled { placed: number, released: number, unknown: number }

const orderOf = (answer: { type: 'order', order: UpstreamOrder } | { type: 'cart' }): UpstreamOrder => {
  if (answer.type !== 'order') throw conflict('The cart could not be completed')
  return answer.order
}

const heldOf = (cart: UpstreamCart, variantId: string): number =>
  (cart.items ?? []).filter((i) => i.variant_id === variantId).reduce((sum, i) => sum + i.quantity, 0)

export class StoreFront {
  constructor (
    private readonly orders: OrdersService,
    private readonly sessions: UpstreamSessionStore,
    private readonly catalogs: CatalogCache<Catalog>,
    private readonly providers: CatalogCache<string[]>,
    private readonly keptShipping: CatalogCache<UpstreamShippingOption[]>,
    private readonly dispense: OrderDispensing,
    private readonly completions: { unsettled: UnsettledStore, locks: Locks, tenants: Pick<TenantStore, 'get'>, log: FastifyBaseLogger }
  ) {}

  /**
   * `use` with the club's `cache`d copy of what `load` reads (at most CATALOG_CACHE_MS old, read with the
   * publishable key for the first checkout of the club). A copy the backend no longer agrees with (its answer to
   * `use` is a 422: an option or a provider it no longer offers) is dropped, and `use` runs again on a fresh read.
   */
  private async withKept<T> (cache: CatalogCache<T>, actor: ShopperActor, load: () => Promise<T>, use: (kept: T) => Promise<unknown>): Promise<void> {
    const kept = async (): Promise<T> => await cache.get(actor.tenant.id, settingsKey(actor.medusa.settings), load)
    try {
      await use(await kept())
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 422) throw err
      cache.drop(actor.tenant.id)
      await use(await kept())
    }
  }

  /** A payment session on `cart`, the providers of the club's region as kept. */
  private async payWithKept (actor: ShopperActor, cart: UpstreamCart, method: PaymentMethod): Promise<void> {
    const { medusa, upstreamToken: token } = actor
    const collectionId = await collectionOf(medusa, cart, token)
    await this.withKept(this.providers, actor, async () => (await medusa.listPaymentProviders()).map((p) => p.id),
      async (providers) => { await openSession(medusa, collectionId, method, providers, token) })
  }

  /**
   * Shipping by name for a cart the bot made, with the club's options as kept: the bot's carts, without an
   * address, in the club's region and sales channel, are all offered the same.
   */
  private async shipWithKept (actor: ShopperActor, cartId: string, name: string): Promise<void> {
    const { medusa, upstreamToken: token } = actor
    await this.withKept(this.keptShipping, actor, async () => await medusa.listShippingOptions(cartId, token),
      async (options) => await shipBy(medusa, cartId, name, token, true, options))
  }

  /** The member's upstream login when they logged in through us; else `ownToken`, which the backend may accept. */
  async shopper (actor: Actor, ownToken: string | undefined): Promise<ShopperActor> {
    const session = await this.sessions.get(actor.tenant.id, actor.sub)
    return { ...actor, medusa: this.orders.medusa(actor), upstreamToken: session?.token ?? ownToken }
  }

  /** A page as the backend has it now (the store route: stock as of this moment). */
  async products (actor: ShopperActor, page: { limit: number, offset: number }): Promise<Catalog> {
    return await productPage(actor.medusa, page, actor.upstreamToken)
  }

  /**
   * The club's catalog for the bot, at most CATALOG_CACHE_MS old: one backend call per club and instance in that
   * time. Read with the club's publishable key alone, the same for every member (no customer-group prices).
   */
  async catalog (actor: Actor): Promise<Catalog> {
    const medusa = this.orders.medusa(actor)
    return await this.catalogs.get(actor.tenant.id, settingsKey(medusa.settings), async () =>
      await productPage(medusa, { limit: CATALOG_MAX, offset: 0 }))
  }

  /** A page of the kept catalog; one past what it holds (a club of more than CATALOG_MAX products) from the backend. */
  async catalogPage (actor: Actor, page: { limit: number, offset: number }): Promise<Catalog> {
    const catalog = await this.catalog(actor)
    const end = page.offset + page.limit
    if (end <= catalog.products.length || catalog.products.length >= catalog.count) {
      return {
        products: catalog.products.slice(page.offset, end), count: catalog.count
      }
    }
    return await productPage(this.orders.medusa(actor), page)
  }

  /** One product of the kept catalog, by id; undefined when the club does not sell it (or it is past CATALOG_MAX). */
  async product (actor: Actor, productId: string): Promise<Product | undefined> {
    return (await this.catalog(actor)).products.find((p) => p.id === productId)
  }

  /** A cart in the club's region; another region is refused (the club sells in one). */
  async createCart (actor: ShopperActor, regionId?: string): Promise<Cart> {
    if (regionId && regionId !== actor.medusa.settings.regionId) {
      throw new AppError('VALIDATION_ERROR', 'This club sells in its own region only', {
        details: { errors: { regionId: [`must be ${actor.medusa.settings.regionId}`] } }
      })
    }
    return mapCart(await actor.medusa.createCart(actor.email, actor.upstreamToken))
  }

  async getCart (actor: ShopperActor, cartId: string): Promise<Cart> {
    return mapCart(await this.ownCart(actor, cartId))
  }

  async addItem (actor: ShopperActor, cartId: string, variantId: string, quantity: number): Promise<Cart> {
    await this.ownCart(actor, cartId)
    return mapCart(await actor.medusa.addLineItem(cartId, variantId, quantity, actor.upstreamToken))
  }

  /**
   * Brings the variant's line to at least `quantity`, creating the cart first when there is none yet: a request
   * made again (a chat turn run twice) adds nothing more. The cart read once.
   */
  async holdAtLeast (actor: ShopperActor, cartId: string | undefined, variantId: string, quantity: number): Promise<Cart> {
    const fresh = async (n: number) => mapCart(await actor.medusa.createCart(actor.email, actor.upstreamToken, [{ variant_id: variantId, quantity: n }]))
    if (!cartId) return await fresh(quantity)
    const cart = await this.ownCart(actor, cartId, true)
    // A completed cart is an order now, never reused (its completion's answer may have been lost): a fresh cart gets
    // what the member added since, the target less what the order holds.
    if (cart.completed_at) return await fresh(Math.max(1, quantity - heldOf(cart, variantId)))
    const held = heldOf(cart, variantId)
    if (held >= quantity) return mapCart(cart)
    return mapCart(await actor.medusa.addLineItem(cart.id, variantId, quantity - held, actor.upstreamToken))
  }

  /** The variant's line at exactly `quantity` (0 removes it): fewer is a removal and a fresh add. The cart read once. */
  async setLine (actor: ShopperActor, cartId: string, variantId: string, quantity: number): Promise<void> {
    const cart = await this.ownCart(actor, cartId)
    let held = heldOf(cart, variantId)
    if (quantity < held) {
      for (const line of (cart.items ?? []).filter((i) => i.variant_id === variantId)) await actor.medusa.removeLineItem(cartId, line.id, actor.upstreamToken)
      held = 0
    }
    if (quantity > held) await actor.medusa.addLineItem(cartId, variantId, quantity - held, actor.upstreamToken)
  }

  async removeItem (actor: ShopperActor, cartId: string, lineItemId: string): Promise<Cart> {
    const cart = await this.ownCart(actor, cartId)
    if (!(cart.items ?? []).some((i) => i.id === lineItemId)) throw notFound('Line item')
    await actor.medusa.removeLineItem(cartId, lineItemId, actor.upstreamToken)
    return mapCart(await actor.medusa.getCart(cartId, actor.upstreamToken))
  }

  async shippingOptions (actor: ShopperActor, cartId: string): Promise<ShippingOption[]> {
    await this.ownCart(actor, cartId)
    return (await actor.medusa.listShippingOptions(cartId, actor.upstreamToken)).map(mapShippingOption)
  }

  async addShippingMethod (actor: ShopperActor, cartId: string, optionId: string): Promise<Cart> {
    await this.ownCart(actor, cartId)
    return mapCart(await actor.medusa.addShippingMethod(cartId, optionId, actor.upstreamToken))
  }

  async paymentSession (actor: ShopperActor, cartId: string, method: PaymentMethod): Promise<Cart> {
    await this.payWithKept(actor, await this.ownCart(actor, cartId), method)
    return mapCart(await actor.medusa.getCart(cartId, actor.upstreamToken))
  }

  /**
   * Completes the cart; the order is re-read through the admin API, which computes its statuses. Completing
   * again, or at the same time, answers the same order (as the backend does) with one created event and one notice.
   */
  async complete (actor: ShopperActor, cartId: string): Promise<Order> {
    const cart = await this.ownCart(actor, cartId, true)
    return await this.reserved(actor, cart, cart.shipping_methods?.[0]?.name ?? undefined, async (quota) => await this.place(actor, cartId, quota))
  }

  /**
   * Shipping by name (or the first offered), a payment session, then completion, each call made once: the cart
   * is read once and passed along. The backend checks stock again at completion (what the bot showed may be as
   * old as its kept catalog). A cart completed already (the request made again) answers the order it became.
   */
  async checkout (actor: ShopperActor, cartId: string, choice: { shipping: string, payment: PaymentMethod }): Promise<Order> {
    const cart = await this.ownCart(actor, cartId, true)
    return await this.reserved(actor, cart, choice.shipping, async (quota) => {
      if (!cart.completed_at) {
        await this.shipWithKept(actor, cartId, choice.shipping)
        await this.payWithKept(actor, cart, choice.payment)
      }
      return await this.place(actor, cartId, quota)
    })
  }

  /**
   * Runs `place` with the cart's grams reserved against the member's quota (refused before anything is asked of
   * the backend). A cart completed already reserves nothing again. When the backend refuses the order (a 4xx:
   * out of stock), the reservation is given back; any other failure keeps it (the order may exist), until
   * settle() finds out.
   */
  private async reserved (actor: ShopperActor, cart: UpstreamCart, shipping: string | undefined, place: (quota: OrderQuota) => Promise<Order>): Promise<Order> {
    const memberId = actor.role === 'member' ? actor.sub : cart.customer_id ?? actor.sub
    if (cart.completed_at) return await place({ memberId, holdId: cart.id })
    const quota = await this.dispense.reserveCart(actor, memberId, cart, shipping)
    try {
      return await place(quota)
    } catch (err) {
      if (!answerLost(err)) {
        await this.dispense.release(actor.tenant, quota)
        await this.completions.unsettled.forget(actor.tenant.id, cart.id)
      }
      throw err
    }
  }

  /**
   * Completes the cart and records its order, one at a time per cart. The completion is noted first (with the
   * lock) and forgotten once the order is recorded and staff told (with the lock's release; or after it, by
   * reserved(), once the backend refused it): whatever interrupts it (a lost answer, this process killed) leaves
   * the note for settle().
   */
  private async place (actor: ShopperActor, cartId: string, quota: OrderQuota): Promise<Order> {
    const { unsettled, locks } = this.completions
    const entry = { cartId, memberId: quota.memberId, holdId: quota.holdId, by: completerOf(actor), at: Date.now() }
    let settled = false
    const hold = unsettled.completing(actor.tenant.id, entry, () => settled)
    return await locks.withHold(keys.orders.completionLock(actor.tenant.id, cartId), COMPLETION_LOCK, hold, async ({ earlier }) => {
      const placed = await this.completion(actor, cartId)
      try {
        const order = await this.recorded(actor, placed, quota, earlier)
        settled = true
        return order
      } catch (err) {
        if (!answerLost(err)) throw err
        // the order exists: the member is told so; settle() records it and tells staff once the backend answers
        this.completions.log.warn({ err, orderId: placed.id }, 'order placed but not recorded yet: settled later')
        return mapOrder(placed)
      }
    })
  }

  /**
   * The order's creation recorded once, staff told; the caller then forgets the note. Staff are told when this call
   * recorded it, or when an interrupted attempt left its note (it recorded the order but may not have told anyone:
   * its answer was lost, or its process died, before the note was forgotten).
   */
  private async recorded (actor: Actor, placed: UpstreamOrder, quota: OrderQuota, interrupted: boolean): Promise<Order> {
    const { order, added } = await this.orders.recordOnce(
      actor, placed.id, activity('orders:activity.created', 'success', authorOf(actor)), quotaMetadata(quota)
    )
    if (added || interrupted) await this.orders.notify(actor, order, 'order.placed')
    return order
  }

  /**
   * Completes the cart. A lost answer (the backend may have completed it) is read back once: the cart read, then
   * completed again, which answers the order it became (or completes it now, or refuses). A read-back lost too,
   * or a cart read as completed whose order does not come back: the outcome is not known yet (outcomeUnknown).
   */
  private async completion (actor: ShopperActor, cartId: string): Promise<UpstreamOrder> {
    const { medusa, upstreamToken: token } = actor
    try {
      return orderOf(await medusa.completeCart(cartId, token))
    } catch (err) {
      if (!answerLost(err)) throw err
      this.completions.log.warn({ err, cartId }, 'cart completion answer lost: read back')
    }
    await sleep(READ_BACK_PAUSE_MS)
    try {
      const cart = await medusa.getCart(cartId, token)
      try {
        return orderOf(await medusa.completeCart(cartId, token))
      } catch (err) {
        if (cart.completed_at) throw outcomeUnknown(cartId)
        throw err
      }
    } catch (err) {
      if (answerLost(err)) throw outcomeUnknown(cartId)
      throw err
    }
  }

  /**
   * Settles the club's completions interrupted `afterMs` ago or more: each cart read back as the one who asked for
   * it. Completed: its order recorded, staff told (once), the reservation kept on the order. Not completed (or gone):
   * no order, the reservation given back. A backend still not answering: left for the next time.
   */
  async settle (tenantId: string, afterMs: number): Promise<Settled> {
    const tenant = await this.completions.tenants.get(tenantId)
    const done: Settled = { placed: 0, released: 0, unknown: 0 }
    if (!tenant) return done
    const { unsettled, locks } = this.completions
    for (const { cartId } of await unsettled.olderThan(tenantId, Date.now() - afterMs)) {
      let settled = false
      const hold = unsettled.settling(tenantId, cartId, () => settled)
      const ran = await locks.tryHold(keys.orders.completionLock(tenantId, cartId), COMPLETION_LOCK.ttlMs, hold, async ({ entry }) => {
        // gone meanwhile: settled by the request itself or by another instance
        if (entry === undefined) return 'placed'
        const result = await this.settleOne(tenant, entry)
        settled = result !== 'unknown'
        return result
      })
      if (ran.ran) done[ran.result]++
    }
    return done
  }

  /** One interrupted completion read back: 'placed' and 'released' settle it (its note forgotten by the caller). */
  private async settleOne (tenant: Actor['tenant'], entry: Unsettled): Promise<keyof Settled> {
    const { log } = this.completions
    const actor = await this.shopper({ ...entry.by, tenant }, undefined)
    const quota = { memberId: entry.memberId, holdId: entry.holdId }
    try {
      // read back, never completed here: a cart not completed by now was not ordered (the member or staff were told
      // it may not have been, and may have ordered again since)
      const cart = await actor.medusa.getCart(entry.cartId, actor.upstreamToken)
      if (cart.completed_at) {
        const placed = orderOf(await actor.medusa.completeCart(entry.cartId, actor.upstreamToken))
        await this.recorded(actor, placed, quota, true)
        log.info({ cartId: entry.cartId, orderId: placed.id }, 'interrupted completion settled: the order was placed')
        return 'placed'
      }
    } catch (err) {
      // a cart the backend no longer has (404) was not ordered either
      if (answerLost(err) || !(err instanceof AppError && err.statusCode === 404)) {
        log.warn({ err, cartId: entry.cartId }, 'interrupted completion still unsettled: the backend does not tell')
        return 'unknown'
      }
    }
    await this.dispense.release(tenant, quota)
    log.info({ cartId: entry.cartId }, 'interrupted completion settled: no order, the reservation given back')
    return 'released'
  }

  /** The cart, if it belongs to this club and (unless the caller is an admin) to them; else 404. */
  private async ownCart (actor: ShopperActor, cartId: string, completedToo = false): Promise<UpstreamCart> {
    const cart = await actor.medusa.getCart(cartId, actor.upstreamToken)
    if (cart.sales_channel_id && cart.sales_channel_id !== actor.medusa.settings.salesChannelId) throw notFound('Cart')
    const email = actor.email?.toLowerCase()
    if (!seesEveryOrder(actor) && cart.email && email && cart.email.toLowerCase() !== email) throw notFound('Cart')
    if (cart.completed_at && !completedToo) throw conflict('The cart is already completed')
    return cart
  }
}
