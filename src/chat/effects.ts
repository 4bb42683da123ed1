import type { FastifyBaseLogger } from 'fastify'
import { variantTitle } from '../../machines/conversation.logic.ts'
import type { EffectAction } from '../../machines/conversation.machine.ts'
import {
  PRODUCTS_PAGE, UNTRACKED_MAX, type AccountRef, type CartItem, type ConversationEffects, type Locale, type Report, type ResultEvent, type RuleRefusal
} from '../../machines/conversation.types.ts'
import { verifyAccessToken } from '../auth/tokens.ts'
import type { QuotaView } from '../dispensing/service.ts'
import type { Tenant } from '../tenants/model.ts'
import { rulesOf, type ClubRules } from '../tenants/rules.ts'
import type { TenantStore } from '../tenants/store.ts'
import { mapResult, type Behalf, type BotServices, type Failure, type LinkRecord, type Result } from './bot-services.ts'
import type { LinkedAccount, LinkedAccountStore, LoginFormInvites } from './linking/types.ts'
import type { OutboundMessage, TurnReplies } from './outbound/messages.ts'
import type { PhoneView } from './phone-view.ts'
import { compose, cropsReport, loginForm, notificationsReport, ordersReport, text, type Voice } from './replies/compose.ts'
import { COPY, gramsText } from './replies/copy.ts'

// Performs the machine's named actions: sends replies and calls the club's services, and turns each result that
// the conversation must know into an event.

/** A link made by code lasts as long as one made by the login form (spec, Limits), or less if the token says so. */
const LINK_TTL_MS = 7 * 24 * 60 * 60_000
const DEFAULT_VOICE: Voice = { locale: 'es', currency: 'ARS' }

export type { EffectAction }

/** Effects performed without a call as the member, and the shop calls of search, cart editing and repeat. */
type LocalEffect = 'reply' | 'sendLoginForm' | 'consumeLinkCode' | 'unlink' | 'setLanguage' | 'setUpdates'
type ShopEffect = 'searchProducts' | 'loadProduct' | 'reloadShown' | 'setCartLine' | 'repeatLastOrder'
const EFFECTS: ReadonlySet<string> = new Set<keyof ConversationEffects>([
  'reply', 'sendLoginForm', 'consumeLinkCode', 'fetchProducts', 'addToCart', 'placeOrder', 'report', 'unlink',
  'searchProducts', 'loadProduct', 'reloadShown', 'setCartLine', 'repeatLastOrder', 'setLanguage', 'setUpdates',
])

/** The machine's I/O actions among those `transition()` returns (XState's own, like assign, are already applied). */
export function effectsOf (actions: ReadonlyArray<{ type: string, params?: unknown }>): EffectAction[] {
  return actions.filter((a) => EFFECTS.has(a.type)) as EffectAction[]
}

export interface EffectDeps {
  services: BotServices
  replies: TurnReplies
  tenants: TenantStore
  linkedAccounts: LinkedAccountStore
  loginFormInvites: LoginFormInvites
  jwtSecret: string
  flowId: string
  clock: () => number
  log: FastifyBaseLogger
}

export function accountRef (a: LinkedAccount): AccountRef {
  return {
    tenantId: a.tenantId,
    tenantName: a.tenantName,
    name: a.name,
    role: a.role,
    linkedAt: a.linkedAt,
    expiresAt: a.expiresAt,
    ...(a.locale ? { locale: a.locale } : {})
  }
}

/** Replies that show the member where they stand (the menu, the cart, the order summary). */
const STANDING_SHOWN: ReadonlySet<string> = new Set(['menu', 'cart', 'summary'])

/** Rules that cap or condition what a member receives: only then is the member's record read for the menu. */
const governs = (rules: ClubRules): boolean =>
  rules.dailyGrams !== null || rules.monthlyGrams !== null || rules.yearlyGrams !== null || rules.young !== null || rules.minAge !== null ||
  rules.identityCheckFirst || rules.registrationRequired || rules.allowanceRequired || rules.minMembershipDays > 0

const commerceFailure = (failure: Failure) => failure === 'rejected' ? 'stock' as const : 'unavailable' as const

async function andThen<T, U> (res: Result<T>, next: (value: T) => Promise<Result<U>>): Promise<Result<U>> {
  return res.ok ? await next(res.value) : res
}

/** The value kept under `key`, made by `make` the first time: the kept promise itself (no async wrapper, no hop more). */
function once<V> (kept: Map<string, Promise<V>>, key: string, make: () => Promise<V>): Promise<V> {
  let value = kept.get(key)
  if (!value) kept.set(key, value = make())
  return value
}

/**
 * One turn's effects, for one phone. The phone's records come in its view (read once for the turn, kept up to
 * date by the writes below); a club's record is read, and the member's token checked, once per turn.
 */
export class Effects {
  private readonly clubs = new Map<string, Promise<Tenant | undefined>>()
  private readonly members = new Map<string, Promise<Result<Behalf>>>()
  private readonly quotas = new Map<string, Promise<QuotaView | undefined>>()

  constructor (private readonly deps: EffectDeps, private readonly view: PhoneView) {}

  private club (tenantId: string): Promise<Tenant | undefined> {
    return once(this.clubs, tenantId, () => this.deps.tenants.get(tenantId))
  }

  /** The club's currency, in the member's language for this club: their own choice, else the club's. */
  async voice (tenantId: string | undefined): Promise<Voice> {
    const tenant = tenantId ? await this.club(tenantId) : undefined
    if (!tenant) return DEFAULT_VOICE
    return { locale: this.view.account(tenant.id)?.locale ?? tenant.locale, currency: tenant.currency, pickup: tenant.pickup }
  }

  /** The phone's links, each with the language the bot speaks there. */
  async accounts (): Promise<AccountRef[]> {
    return await Promise.all(this.view.accounts.map(async (a) => ({
      ...accountRef(a),
      locale: a.locale ?? (await this.club(a.tenantId))?.locale ?? DEFAULT_VOICE.locale,
      ...(this.view.updatesOn(a.tenantId) ? {} : { updates: false }),
    })))
  }

  /** The member of the phone's live link to the club; 'auth' when the link expired or its token no longer holds. */
  private async behalf (phone: string, tenantId: string): Promise<Result<Behalf>> {
    return await once(this.members, tenantId, async () => {
      const account = this.view.account(tenantId)
      return account && account.expiresAt > this.deps.clock() ? await this.deps.services.behalf(account, phone) : { ok: false, failure: 'auth', status: 401 }
    })
  }

  /**
   * A member's quota and status in a club whose rules govern them, read once a turn; undefined for staff, a club
   * without such rules (no read at all), or when it cannot be read (the menu is shown without it).
   */
  private async quota (phone: string, tenantId: string): Promise<QuotaView | undefined> {
    return await once(this.quotas, tenantId, async () => {
      const tenant = await this.club(tenantId)
      if (!tenant || !governs(rulesOf(tenant)) || this.view.account(tenantId)?.role !== 'member') return undefined
      const who = await this.behalf(phone, tenantId)
      const res = who.ok ? await this.deps.services.quota(who.value) : undefined
      return res?.ok ? res.value : undefined
    })
  }

  /** The THC ceiling of the member, read only in a club whose rules set one for young members. */
  private async ceiling (phone: string, tenantId: string): Promise<number | null> {
    const tenant = await this.club(tenantId)
    if (!tenant || rulesOf(tenant).young?.maxThcPercent == null) return null
    return (await this.quota(phone, tenantId))?.thcCeilingPercent ?? null
  }

  /** "18 g left this month" (the tightest period in force), or why a member who is not active cannot order. */
  private async standingNote (phone: string, tenantId: string, voice: Voice): Promise<OutboundMessage | undefined> {
    const quota = await this.quota(phone, tenantId)
    if (!quota) return undefined
    const copy = COPY[voice.locale]
    if (quota.status !== 'active') return text(copy.standing(quota.status))
    const [tightest] = [...quota.periods].sort((a, b) => a.remaining - b.remaining)
    return tightest ? text(copy.gramsLeft(gramsText(tightest.remaining, voice.locale), tightest.period)) : undefined
  }

  private say (phone: string, messages: OutboundMessage[]): void {
    for (const message of messages) this.deps.replies.add(phone, message)
  }

  /** Runs one action in the voice of the conversation's club; the event to feed back, if any. */
  async perform (phone: string, tenantId: string | undefined, action: EffectAction): Promise<ResultEvent | undefined> {
    switch (action.type) {
      case 'reply': {
        const voice = await this.voice(tenantId)
        const note = tenantId && STANDING_SHOWN.has(action.params.id) ? await this.standingNote(phone, tenantId, voice) : undefined
        this.say(phone, [...(note ? [note] : []), ...compose(action.params, voice)])
        return undefined
      }
      case 'sendLoginForm': {
        // the invite is noted while the clubs are read: the form only goes out once the turn is committed
        const [, all] = await Promise.all([this.deps.loginFormInvites.markSent(phone), this.deps.tenants.list()])
        const clubs = all.map((t) => ({ id: t.id, name: t.name, locale: t.locale }))
        this.say(phone, [loginForm(phone, this.deps.flowId, clubs, await this.voice(tenantId))])
        return undefined
      }
      case 'consumeLinkCode': return await this.link(phone, action.params.code)
      case 'unlink':
        await this.deps.linkedAccounts.remove(phone, action.params.tenantId)
        this.view.unlinked(action.params.tenantId)
        this.members.delete(action.params.tenantId)
        return undefined
      case 'setLanguage': return await this.setLanguage(phone, action.params.tenantId, action.params.locale)
      case 'setUpdates':
        await this.deps.linkedAccounts.setUpdates(phone, action.params.tenantId, action.params.on)
        this.view.updates(action.params.tenantId, action.params.on)
        return undefined
      case 'searchProducts':
      case 'loadProduct':
      case 'reloadShown':
      case 'setCartLine':
      case 'repeatLastOrder':
        return await this.shop(phone, action)
      default: return await this.onBehalf(phone, action)
    }
  }

  private async link (phone: string, code: string): Promise<ResultEvent> {
    const res = await this.deps.services.consumeLinkCode(code, phone)
    if (!res.ok) return { type: 'LINK_FAILED', reason: res.status === 404 ? 'not_found' : res.status === 400 ? 'invalid' : 'unavailable' }
    const account = await this.accountFrom(res.value)
    if (!account) return { type: 'LINK_FAILED', reason: 'not_found' }
    await this.deps.linkedAccounts.put(phone, account)
    // later steps see the new link, and check its token rather than an older one's
    this.view.linked(account)
    this.members.delete(account.tenantId)
    return { type: 'LINK_OK', tenantId: account.tenantId, accounts: await this.accounts() }
  }

  /** The record's token decides the member's role; a token that no longer verifies makes the code useless. */
  private async accountFrom (record: LinkRecord): Promise<LinkedAccount | undefined> {
    try {
      const principal = await verifyAccessToken(this.deps.jwtSecret, record.token)
      const now = this.deps.clock()
      return {
        tenantId: record.tenantId,
        tenantName: record.tenantName,
        customerId: record.customerId,
        email: record.email,
        name: record.name,
        role: principal.role,
        token: record.token,
        linkedAt: now,
        expiresAt: Math.min(now + LINK_TTL_MS, principal.exp * 1000),
      }
    } catch {
      return undefined
    }
  }

  /** Calls made as the member; a link that no longer holds ends the conversation's link. */
  private async onBehalf (phone: string, action: Exclude<EffectAction, { type: LocalEffect | ShopEffect }>): Promise<ResultEvent | undefined> {
    const who = await this.behalf(phone, action.params.tenantId)
    const { services } = this.deps
    switch (action.type) {
      case 'fetchProducts': {
        const ceiling = await this.ceiling(phone, action.params.tenantId)
        const res = await andThen(who, async (w) => await services.products(w, action.params.offset, PRODUCTS_PAGE, ceiling))
        if (res.ok) return { type: 'PRODUCTS_LOADED', products: res.value.products, offset: action.params.offset, count: res.value.count }
        return res.failure === 'auth' ? { type: 'AUTH_EXPIRED' } : { type: 'PRODUCTS_FAILED' }
      }
      case 'addToCart': {
        const { cartId, variantId, quantity, target } = action.params
        const over = who.ok ? await this.overCap(phone, who.value, action.params) : undefined
        if (over) return { type: 'ADD_FAILED', reason: 'stock', ...over }
        const res = await andThen(who, async (w) => await services.addToCart(w, cartId, variantId, target))
        if (res.ok) return { type: 'ADDED', cartId: res.value, variantId, quantity }
        return res.failure === 'auth' ? { type: 'AUTH_EXPIRED' } : { type: 'ADD_FAILED', reason: commerceFailure(res.failure) }
      }
      case 'placeOrder': {
        const res = await andThen(who, async (w) => await services.placeOrder(w, action.params.cartId))
        if (res.ok) {
          this.quotas.delete(action.params.tenantId)
          return { type: 'ORDER_PLACED', displayId: res.value.displayId, total: res.value.total }
        }
        if (res.failure === 'auth') return { type: 'AUTH_EXPIRED' }
        if (res.failure === 'unknown') return { type: 'ORDER_UNKNOWN' }
        return { type: 'ORDER_FAILED', reason: commerceFailure(res.failure), ...(res.refusal ? { refusal: res.refusal } : {}) }
      }
      case 'report': return await this.report(phone, action.params.tenantId, who, action.params.what)
    }
  }

  /**
   * A quantity that would take the cart over a cap of an active member: the tightest period's grams this line may
   * still grow by, and as many whole units. Nothing is read in a club whose rules govern no one (no quota), and a
   * member who is not active is told why at the order, as before.
   */
  private async overCap (phone: string, who: Behalf, add: ConversationEffects['addToCart']): Promise<{ refusal: RuleRefusal, units: number } | undefined> {
    const quota = await this.quota(phone, add.tenantId)
    if (!quota || quota.status !== 'active' || quota.periods.length === 0) return undefined
    const grams = await this.deps.services.grams(who)
    const perUnit = grams.ok ? grams.value.get(add.variantId) ?? null : null
    if (!grams.ok || perUnit === null) return undefined
    const others = (add.cart ?? []).reduce((sum, l) => sum + (l.variantId === add.variantId ? 0 : (grams.value.get(l.variantId) ?? 0) * l.quantity), 0)
    // the tightest period is the one crossed first
    const [tightest] = [...quota.periods].sort((a, b) => a.remaining - b.remaining)
    if (!tightest || others + perUnit * add.target <= tightest.remaining + 1e-9) return undefined
    const room = Math.max(0, tightest.remaining - others - perUnit * (add.target - add.quantity))
    return { refusal: { kind: 'limit', period: tightest.period, remaining: Math.round(room * 1000) / 1000 }, units: Math.floor((room + 1e-9) / perUnit) }
  }

  // The bot's search, cart editing, repeat order and language (kept together so they move as one).

  private async setLanguage (phone: string, tenantId: string, locale: Locale): Promise<ResultEvent | undefined> {
    const account = this.view.account(tenantId)
    if (!account) return undefined
    await this.deps.linkedAccounts.put(phone, { ...account, locale })
    this.view.linked({ ...account, locale })
    return undefined
  }

  private async shop (phone: string, action: Extract<EffectAction, { type: ShopEffect }>): Promise<ResultEvent> {
    const who = await this.behalf(phone, action.params.tenantId)
    if (!who.ok) return { type: 'AUTH_EXPIRED' }
    const { services } = this.deps
    const ceiling = action.type === 'setCartLine' ? null : await this.ceiling(phone, action.params.tenantId)
    switch (action.type) {
      case 'searchProducts': {
        const res = await services.catalog(who.value, ceiling)
        if (!res.ok) return res.failure === 'auth' ? { type: 'AUTH_EXPIRED' } : { type: 'PRODUCTS_FAILED' }
        const { query, quantity } = action.params
        return { type: 'CATALOG_LOADED', products: res.value, query, ...(quantity === undefined ? {} : { quantity }) }
      }
      // the session keeps no product: names, prices and stock are read again from the club's catalog
      case 'loadProduct': {
        const res = await services.product(who.value, action.params.productId, ceiling)
        if (res.ok) return { type: 'PRODUCT_LOADED', product: res.value }
        return res.failure === 'auth' ? { type: 'AUTH_EXPIRED' } : { type: 'PRODUCTS_FAILED' }
      }
      case 'reloadShown': {
        const res = await services.catalog(who.value, ceiling)
        if (!res.ok) return res.failure === 'auth' ? { type: 'AUTH_EXPIRED' } : { type: 'PRODUCTS_FAILED' }
        const byId = new Map(res.value.map((p) => [p.id, p]))
        return { type: 'SHOWN_LOADED', products: action.params.productIds.flatMap((id) => byId.get(id) ?? []) }
      }
      case 'setCartLine': {
        const { cartId, variantId, quantity } = action.params
        const res = await services.setLine(who.value, cartId, variantId, quantity)
        if (res.ok) return { type: 'LINE_SET', variantId, quantity }
        return res.failure === 'auth' ? { type: 'AUTH_EXPIRED' } : { type: 'LINE_FAILED', reason: commerceFailure(res.failure) }
      }
      case 'repeatLastOrder': return await this.repeat(who.value, action.params.cartId, action.params.cart, ceiling)
    }
  }

  /**
   * The last order's lines into the cart, each as far as stock (and the member's THC ceiling) allows today (a line the cart holds already counts),
   * at today's price. Lines are brought to a target quantity, so a turn run again adds nothing more.
   */
  private async repeat (
    who: Behalf, cartId: string | undefined, cart: ReadonlyArray<{ variantId: string, quantity: number }>, ceiling: number | null
  ): Promise<ResultEvent> {
    const { services } = this.deps
    const account = this.view.account(who.actor.tenant.id)
    // a product above the member's THC ceiling is not offered, so it is not repeated either: it is named as missing
    const [last, catalog] = await Promise.all([services.lastOrderLines(who, account?.customerId ?? ''), services.catalog(who, ceiling)])
    if (!last.ok || !catalog.ok) {
      const auth = (!last.ok && last.failure === 'auth') || (!catalog.ok && catalog.failure === 'auth')
      return auth ? { type: 'AUTH_EXPIRED' } : { type: 'REPEAT_FAILED', reason: 'unavailable' }
    }
    if (!last.value) return { type: 'REPEAT_FAILED', reason: 'none' }
    const lines: CartItem[] = []
    const missing: string[] = []
    let id = cartId
    for (const ordered of last.value) {
      const product = catalog.value.find((p) => p.variants.some((v) => v.id === ordered.variantId))
      const variant = product?.variants.find((v) => v.id === ordered.variantId)
      const held = cart.find((l) => l.variantId === ordered.variantId)?.quantity ?? 0
      const quantity = variant ? Math.min(ordered.quantity, (variant.stock ?? UNTRACKED_MAX) - held) : 0
      const added = product && variant && quantity >= 1 ? await services.addToCart(who, id, variant.id, held + quantity) : undefined
      if (added && !added.ok && added.failure === 'auth') return { type: 'AUTH_EXPIRED' }
      if (!product || !variant || !added?.ok) {
        missing.push(ordered.title)
        continue
      }
      id = added.value
      lines.push({ variantId: variant.id, productId: product.id, title: variantTitle(product, variant), quantity, unitPrice: variant.price })
    }
    return id && lines.length > 0 ? { type: 'REPEATED', cartId: id, lines, missing } : { type: 'REPEAT_FAILED', reason: 'stock' }
  }

  private async report (phone: string, tenantId: string, who: Result<Behalf>, what: Report): Promise<ResultEvent | undefined> {
    const voice = await this.voice(tenantId)
    const res = await andThen(who, async (w) => await this.reportOf(w, what, voice))
    if (!res.ok && res.failure === 'auth') return { type: 'AUTH_EXPIRED' }
    this.say(phone, [res.ok ? res.value : text(COPY[voice.locale].reportFailed)])
    return undefined
  }

  private async reportOf (who: Behalf, what: Report, voice: Voice): Promise<Result<OutboundMessage>> {
    const { services } = this.deps
    switch (what) {
      case 'orders': return mapResult(await services.orders(who), (v) => ordersReport(v.orders, voice, who.actor.role === 'admin'))
      case 'notifications': return mapResult(await services.notifications(who), (v) => notificationsReport(v.unread, v.latest, voice))
      case 'crops': return mapResult(await services.crops(who), (v) => cropsReport(v.crops, voice))
    }
  }
}
