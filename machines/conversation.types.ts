// The member's conversation: its states, context, events and the replies it asks for.
// Pure data: no I/O and no imports from src/.

export const CONVERSATION_STATES = [
  'UNLINKED',
  'AWAITING_LINK_CODE',
  'AWAITING_TENANT_SELECTION',
  'MAIN_MENU',
  'BROWSING_PRODUCTS',
  'AWAITING_QUANTITY',
  'VIEWING_CART',
  'CONFIRMING_ORDER',
] as const
export type ConversationState = typeof CONVERSATION_STATES[number]

/** Bumped whenever a stored session of the previous shape could no longer be resumed as is. */
export const MACHINE_VERSION = 2
export const IDLE_RESET_MS = 30 * 60_000
export const MAX_LINK_FAILURES = 3
/** Product rows per page: one row of the provider's 10 stays free for `products:more`. */
export const PRODUCTS_PAGE = 9
export const MAX_LIST_ROWS = 10
/** A search shows at most this many matches; more asks for more words. */
export const SEARCH_ROWS = 9
/** The most of a variant whose stock is not tracked one chat order may hold. */
export const UNTRACKED_MAX = 99

export type Locale = 'es' | 'en'

type Role = 'member' | 'grower' | 'admin'

/** What the conversation knows of one club the phone is linked to (never the token). */
export interface AccountRef {
  tenantId: string
  tenantName: string
  name: string
  role: Role
  linkedAt: number
  expiresAt: number
  /** The member's own language choice for this club, when they made one. */
  locale?: Locale
  /** false when the member turned order updates and reminders in the chat off for this club (default on). */
  updates?: boolean
}

export interface Variant {
  id: string
  title: string
  price: number
  /** Units available; null when the club does not track this variant's stock (always orderable). */
  stock: number | null
}

export interface Product {
  id: string
  title: string
  variants: Variant[]
}

/** One line of the member's cart, one per variant. */
export interface CartItem {
  variantId: string
  productId: string
  title: string
  quantity: number
  unitPrice: number
}

export interface ConversationContext {
  phone: string
  tenantId?: string
  /**
   * The one product being chosen from while its variants or a quantity are asked for. No other product is kept:
   * a page is kept as its product ids, and names, prices and stock are read again from the club's catalog.
   */
  product?: Product
  selectedVariantId?: string
  cart: CartItem[]
  cartId?: string
  lastActivity: number
  /** The phone's links as of the last inbound message. */
  accounts: AccountRef[]
  linkFailures: number
  /** Reply ids of the choices last offered, in order, so that a bare number picks one. */
  options: string[]
  /** The ids of the products on show while browsing (a page, or a search's matches), in order; [] otherwise. */
  shown: string[]
  catalogOffset: number
  catalogCount: number
  /** The words of a search whose matches are on show; unset while a page of the whole catalog is. */
  query?: string
  /** A quantity said with a search ("quiero 2 amnesia"), used when one of its matches is picked. */
  wanted?: number
  /** A question the bot asked in the current state, awaiting its answer (see `Pending`). */
  pending?: Pending
}

/**
 * Modes within a state: a destructive move awaiting "yes", or a cart line awaiting its new quantity. Any other
 * input drops it.
 */
export type Pending =
  | { kind: 'clearCart' }
  | { kind: 'unlink' }
  | { kind: 'editLine', variantId: string }

/** Facts the runtime attaches to every inbound event: when it arrived and the phone's links at that moment. */
interface Inbound {
  at: number
  accounts: AccountRef[]
}

export type LinkFailure = 'invalid' | 'not_found' | 'unavailable'
export type CommerceFailure = 'stock' | 'unavailable'

/**
 * Why the club's rules refused an order, in the member's terms: over a cap (the grams still possible in that
 * period), or the member's standing (`reason` as the refusal's details name it: status, registration, minAge...).
 */
export type RuleRefusal =
  | { kind: 'limit', period: 'day' | 'month' | 'year', remaining: number }
  | { kind: 'standing', reason: string, status?: string | undefined }

export type InboundEvent =
  | { type: 'TEXT', text: string } & Inbound
  | { type: 'REPLY', id: string, title: string } & Inbound
  | { type: 'UNSUPPORTED', messageType: string } & Inbound
  /** The login form succeeded for this phone (flow endpoint). */
  | { type: 'LINKED' } & Inbound

/** Results of the runtime's I/O, fed back in the same turn. */
export type ResultEvent =
  | { type: 'LINK_OK', tenantId: string, accounts: AccountRef[] }
  | { type: 'LINK_FAILED', reason: LinkFailure }
  | { type: 'PRODUCTS_LOADED', products: Product[], offset: number, count: number }
  | { type: 'PRODUCTS_FAILED' }
  /** The product a member picked, as the club's catalog has it now; undefined when the club no longer sells it. */
  | { type: 'PRODUCT_LOADED', product: Product | undefined }
  /** The products on show, read again to show them again (those the club no longer sells left out). */
  | { type: 'SHOWN_LOADED', products: Product[] }
  /** The club's catalog, for a search by words. */
  | { type: 'CATALOG_LOADED', products: Product[], query: string, quantity?: number }
  /** A cart line now holds `quantity` (0: removed). */
  | { type: 'LINE_SET', variantId: string, quantity: number }
  | { type: 'LINE_FAILED', reason: CommerceFailure }
  /** The last order's lines that could be put in the cart, and the titles of those that could not. */
  | { type: 'REPEATED', cartId: string, lines: CartItem[], missing: string[] }
  | { type: 'REPEAT_FAILED', reason: 'none' | CommerceFailure }
  | { type: 'ADDED', cartId: string, variantId: string, quantity: number }
  /** `refusal`: the quantity would cross a cap; its `remaining` is the grams this line may still grow by, `units` as many units. */
  | { type: 'ADD_FAILED', reason: CommerceFailure, refusal?: RuleRefusal, units?: number }
  | { type: 'ORDER_PLACED', displayId: string, total: number }
  | { type: 'ORDER_FAILED', reason: CommerceFailure, refusal?: RuleRefusal }
  /** The backend's answer to the completion was lost and could not be read back yet: the order may exist. */
  | { type: 'ORDER_UNKNOWN' }
  /** A call on the member's behalf was refused as unauthenticated: the stored token is no longer good. */
  | { type: 'AUTH_EXPIRED' }

export type ConversationEvent = InboundEvent | ResultEvent

export type MenuItem = 'browse'
  | 'cart'
  | 'repeat'
  | 'orders'
  | 'notifications'
  | 'crops'
  | 'switch-club'
  | 'person'
  | 'language'
  | 'unlink'
  | 'updates-off'
  | 'updates-on'
export type Report = 'orders' | 'notifications' | 'crops'

/** What the bot says; the runtime words it in the club's language. `id` names the copy. */
export type Reply =
  | { id: 'welcome' }
  | { id: 'askCode' }
  /** `attemptsLeft` only while the bot is waiting for a code. */
  | { id: 'linkFailed', reason: LinkFailure, attemptsLeft?: number }
  | { id: 'greeting', name: string }
  /** A linked member's "hola" in the menu. */
  | { id: 'hello', name: string }
  | { id: 'clubs', clubs: Array<{ id: string, name: string }> }
  | { id: 'menu', clubName: string, items: MenuItem[] }
  | { id: 'products', products: Product[], offset: number, count: number }
  | { id: 'matches', query: string, products: Product[], more: number }
  | { id: 'noMatch', query: string }
  | { id: 'noProducts' }
  | { id: 'productsFailed' }
  | { id: 'variants', product: Product }
  | { id: 'outOfStock', title: string }
  | { id: 'askQuantity', title: string, price: number, stock: number | null, max: number }
  | { id: 'badQuantity', max: number }
  | { id: 'added', title: string, quantity: number }
  | { id: 'addFailed', reason: CommerceFailure, refusal?: RuleRefusal, units?: number }
  | { id: 'cart', items: CartItem[] }
  | { id: 'cartAll', items: CartItem[] }
  | { id: 'editCart', items: CartItem[] }
  | { id: 'askLineQuantity', title: string, quantity: number, max: number }
  | { id: 'lineSet', title: string, quantity: number }
  | { id: 'lineFailed', reason: CommerceFailure }
  | { id: 'confirm', what: 'clearCart' | 'unlink', clubName: string }
  | { id: 'cartEmpty' }
  | { id: 'cartCleared' }
  | { id: 'summary', items: CartItem[] }
  | { id: 'repeated', missing: string[] }
  | { id: 'repeatFailed', reason: 'none' | CommerceFailure }
  | { id: 'language', locale: Locale }
  | { id: 'updates', on: boolean }
  | { id: 'orderPlaced', displayId: string, total: number }
  | { id: 'orderFailed', reason: CommerceFailure, refusal?: RuleRefusal }
  | { id: 'orderUnknown' }
  | { id: 'timeout' }
  | { id: 'sessionExpired' }
  | { id: 'unlinked', clubName: string }
  /** `media`: the kind of message that is not text (src/chat/provider/media.ts: audio, image, location, ...) */
  | { id: 'unsupported', media: string }
  | { id: 'hint' }
  | { id: 'help', state: ConversationState }

/** The named I/O actions the runtime performs, with their parameters. */
export interface ConversationEffects {
  reply: Reply
  sendLoginForm: undefined
  consumeLinkCode: { code: string }
  fetchProducts: { tenantId: string, offset: number }
  /** One product of the club, for a member's pick from a page or a search. */
  loadProduct: { tenantId: string, productId: string }
  /** The products on show, to show them again. */
  reloadShown: { tenantId: string, productIds: string[] }
  /** `quantity` more of the variant: its cart line becomes `target` (what the cart held before, plus `quantity`). */
  addToCart: {
    tenantId: string
    cartId: string | undefined
    variantId: string
    quantity: number
    target: number
    /** The cart's lines as the conversation holds them: with the target, the grams the cap is checked on. */
    cart?: Array<{ variantId: string, quantity: number }>
  }
  /** The club's whole catalog, for a search by words (`quantity`: one said with the words). */
  searchProducts: { tenantId: string, query: string, quantity?: number }
  /** The variant's cart line to exactly `quantity`; 0 removes it. */
  setCartLine: { tenantId: string, cartId: string, variantId: string, quantity: number }
  /** The member's last order's lines, as far as they are still available, into the cart. */
  repeatLastOrder: { tenantId: string, cartId: string | undefined, cart: Array<{ variantId: string, quantity: number }> }
  /** Keeps the member's language with their link to the club. */
  setLanguage: { tenantId: string, locale: Locale }
  /** Turns the member's chat updates (orders, reminders) for this club on or off. */
  setUpdates: { tenantId: string, on: boolean }
  placeOrder: { tenantId: string, cartId: string }
  report: { tenantId: string, what: Report }
  unlink: { tenantId: string }
}
