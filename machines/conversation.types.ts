// The member's conversation (design/conversation.md): its states, context, events and the replies it asks for.
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
export const MACHINE_VERSION = 1
export const IDLE_RESET_MS = 30 * 60_000
export const MAX_LINK_FAILURES = 3
/** Product rows per page: one row of the provider's 10 stays free for `products:more`. */
export const PRODUCTS_PAGE = 9
export const MAX_LIST_ROWS = 10

export type Role = 'member' | 'grower' | 'admin'

/** What the conversation knows of one club the phone is linked to (never the token). */
export interface AccountRef {
  tenantId: string
  tenantName: string
  name: string
  role: Role
  linkedAt: number
  expiresAt: number
}

export interface Variant {
  id: string
  title: string
  price: number
  stock: number
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
  selectedProductId?: string
  selectedVariantId?: string
  cart: CartItem[]
  cartId?: string
  lastActivity: number
  /** The phone's links as of the last inbound message. */
  accounts: AccountRef[]
  linkFailures: number
  /** Reply ids of the choices last offered, in order, so that a bare number picks one. */
  options: string[]
  /** The product page last shown. */
  catalog: Product[]
  catalogOffset: number
  catalogCount: number
}

/** Facts the runtime attaches to every inbound event: when it arrived and the phone's links at that moment. */
interface Inbound {
  at: number
  accounts: AccountRef[]
}

export type LinkFailure = 'invalid' | 'not_found' | 'unavailable'
export type CommerceFailure = 'stock' | 'unavailable'

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
  | { type: 'ADDED', cartId: string, variantId: string, quantity: number }
  | { type: 'ADD_FAILED', reason: CommerceFailure }
  | { type: 'ORDER_PLACED', displayId: string, total: number }
  | { type: 'ORDER_FAILED', reason: CommerceFailure }
  /** A call on the member's behalf was refused as unauthenticated: the stored token is no longer good. */
  | { type: 'AUTH_EXPIRED' }

export type ConversationEvent = InboundEvent | ResultEvent

export type MenuItem = 'browse' | 'cart' | 'orders' | 'notifications' | 'crops' | 'switch-club' | 'unlink'
export type Report = 'orders' | 'notifications' | 'crops'

/** What the bot says; the runtime words it in the club's language. `id` names the copy. */
export type Reply =
  | { id: 'welcome' }
  | { id: 'askCode' }
  /** `attemptsLeft` only while the bot is waiting for a code. */
  | { id: 'linkFailed', reason: LinkFailure, attemptsLeft?: number }
  | { id: 'greeting', name: string }
  | { id: 'clubs', clubs: Array<{ id: string, name: string }> }
  | { id: 'menu', clubName: string, items: MenuItem[] }
  | { id: 'products', products: Product[], offset: number, count: number }
  | { id: 'noProducts' }
  | { id: 'productsFailed' }
  | { id: 'variants', product: Product }
  | { id: 'outOfStock', title: string }
  | { id: 'askQuantity', title: string, price: number, stock: number, max: number }
  | { id: 'badQuantity', max: number }
  | { id: 'added', title: string, quantity: number }
  | { id: 'addFailed', reason: CommerceFailure }
  | { id: 'cart', items: CartItem[] }
  | { id: 'cartEmpty' }
  | { id: 'cartCleared' }
  | { id: 'summary', items: CartItem[] }
  | { id: 'orderPlaced', displayId: string, total: number }
  | { id: 'orderFailed', reason: CommerceFailure }
  | { id: 'timeout' }
  | { id: 'sessionExpired' }
  | { id: 'unlinked', clubName: string }
  | { id: 'unsupported' }
  | { id: 'hint' }
  | { id: 'help' }

/** The named I/O actions the runtime performs, with their parameters. */
export interface ConversationEffects {
  reply: Reply
  sendLoginForm: undefined
  consumeLinkCode: { code: string }
  fetchProducts: { tenantId: string, offset: number }
  /** `quantity` more of the variant: its cart line becomes `target` (what the cart held before, plus `quantity`). */
  addToCart: { tenantId: string, cartId: string | undefined, variantId: string, quantity: number, target: number }
  placeOrder: { tenantId: string, cartId: string }
  report: { tenantId: string, what: Report }
  unlink: { tenantId: string }
}
