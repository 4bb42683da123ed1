import { parseChoice, type Choice } from './conversation.choices.ts'
import { byName, quantityOf, wordOf, type Word } from './conversation.text.ts'
import {
  MAX_LIST_ROWS,
  PRODUCTS_PAGE,
  SEARCH_ROWS,
  UNTRACKED_MAX,
  type AccountRef,
  type CartItem,
  type ConversationContext,
  type ConversationEvent,
  type Locale,
  type MenuItem,
  type Product,
  type Reply,
  type Variant,
} from './conversation.types.ts'

// The conversation's pure rules, kept out of the machine's config so that tests and the reply composer share them.

const NUMBER = /^\d{1,3}$/
const LINK_PREFIX = /^link-\s*(\S+)$/i
// Link codes are UUIDs (spec: at least 10 characters); anything else is refused without a call.
const CODE_SHAPE = /^[0-9a-f-]{10,64}$/i
/** A cart longer than this shows its first lines and "and N more", with a choice to see it all. */
export const CART_PREVIEW_LINES = 8

export function textOf (event: ConversationEvent): string | undefined {
  return event.type === 'TEXT' ? event.text : undefined
}

/** The control word a typed message is ("ayuda", "menu", "cancelar", "hola", …). */
export function wordIn (event: ConversationEvent): Word | undefined {
  const text = textOf(event)
  return text === undefined ? undefined : wordOf(text)
}

/** The reply id a message picks: a button or row, or the position number of one of the choices last offered. */
function choiceIdOf (context: ConversationContext, event: ConversationEvent): string | undefined {
  if (event.type === 'REPLY') return event.id
  const text = textOf(event)?.trim()
  if (text === undefined || !NUMBER.test(text)) return undefined
  return context.options[Number(text) - 1]
}

export function choiceOf (context: ConversationContext, event: ConversationEvent): Choice | undefined {
  const id = choiceIdOf(context, event)
  return id === undefined ? undefined : parseChoice(id)
}

/** A typed yes or no, or the confirm buttons. */
export function answerOf (context: ConversationContext, event: ConversationEvent): boolean | undefined {
  const choice = choiceOf(context, event)
  if (choice?.kind === 'answer') return choice.yes
  const word = wordIn(event)
  return word === 'yes' ? true : word === 'no' ? false : undefined
}

/** `LINK-<code>` in any state. */
export function linkCodeOf (event: ConversationEvent): string | undefined {
  return LINK_PREFIX.exec(textOf(event)?.trim() ?? '')?.[1]
}

/** A code as typed while the bot waits for one: `LINK-<code>` or the bare code. */
export function typedCodeOf (event: ConversationEvent): string | undefined {
  const text = textOf(event)
  return text === undefined ? undefined : linkCodeOf(event) ?? text.trim()
}

export function looksLikeCode (code: string | undefined): code is string {
  return code !== undefined && CODE_SHAPE.test(code)
}

export function validAccounts (accounts: readonly AccountRef[], now: number): AccountRef[] {
  return accounts.filter((a) => a.expiresAt > now)
}

export function currentAccount (context: ConversationContext, accounts: readonly AccountRef[], now: number): AccountRef | undefined {
  return validAccounts(accounts, now).find((a) => a.tenantId === context.tenantId)
}

/** The club a typed name names among the phone's valid links. */
export function clubNamed (text: string, accounts: readonly AccountRef[], now: number): AccountRef | undefined {
  return byName(text, validAccounts(accounts, now), (a) => a.tenantName)
}

/** The language the bot speaks in this club: the member's own choice, else the club's (Spanish when unknown). */
export function localeOf (context: ConversationContext): Locale {
  return context.accounts.find((a) => a.tenantId === context.tenantId)?.locale ?? 'es'
}

export const otherLocale = (locale: Locale): Locale => locale === 'es' ? 'en' : 'es'

export function menuItems (context: ConversationContext): MenuItem[] {
  const now = context.lastActivity
  const account = currentAccount(context, context.accounts, now)
  const items: MenuItem[] = ['browse', 'cart', 'repeat', 'orders', 'notifications']
  if (account && account.role !== 'member') items.push('crops')
  if (validAccounts(context.accounts, now).length >= 2) items.push('switch-club')
  items.push(account?.updates === false ? 'updates-on' : 'updates-off')
  // staff are the persons; 'person' is answered beside the machine (src/chat/inbox/handoff-gate.ts): the
  // handoff is a flag, not a state. At most 10 rows: a member has no crops row, staff no person row.
  if (account?.role === 'member') items.push('person')
  items.push('language', 'unlink')
  return items
}

export function clubName (context: ConversationContext): string {
  return context.accounts.find((a) => a.tenantId === context.tenantId)?.tenantName ?? context.tenantId ?? ''
}

export function menuReply (context: ConversationContext): Reply {
  return { id: 'menu', clubName: clubName(context), items: menuItems(context) }
}

export function clubsReply (context: ConversationContext): Reply {
  return { id: 'clubs', clubs: validAccounts(context.accounts, context.lastActivity).map((a) => ({ id: a.tenantId, name: a.tenantName })) }
}

function hasMoreProducts (offset: number, shown: number, count: number): boolean {
  return offset + shown < count
}

export function nextProductsOffset (context: ConversationContext): number {
  const next = context.catalogOffset + PRODUCTS_PAGE
  return next < context.catalogCount ? next : 0
}

const cartIsLong = (items: readonly CartItem[]): boolean => items.length > CART_PREVIEW_LINES

/**
 * The choices a reply offers, in the order they are shown. Replies that ask for free text offer none ([]);
 * replies that only inform leave the previous choices in force (undefined).
 */
export function optionsOf (reply: Reply): Choice[] | undefined {
  switch (reply.id) {
    case 'welcome': return [{ kind: 'link', what: 'login' }, { kind: 'link', what: 'code' }]
    case 'sessionExpired': return [{ kind: 'link', what: 'login' }]
    case 'clubs': return reply.clubs.slice(0, MAX_LIST_ROWS).map((c) => ({ kind: 'tenant', tenantId: c.id }))
    case 'menu': return reply.items.map((item) => ({ kind: 'menu', item }))
    case 'products': {
      const rows = productChoices(reply.products, PRODUCTS_PAGE)
      if (hasMoreProducts(reply.offset, rows.length, reply.count)) return [...rows, { kind: 'products', what: 'more' }]
      // past the first page, or no page loaded yet: a way (back) to the first
      return reply.offset > 0 || rows.length === 0 ? [...rows, { kind: 'products', what: 'first' }] : rows
    }
    case 'matches': return productChoices(reply.products, SEARCH_ROWS)
    case 'variants': return reply.product.variants.slice(0, MAX_LIST_ROWS).map((v) => ({ kind: 'variant', variantId: v.id }))
    case 'cart': return [{ kind: 'cart', what: 'checkout' }, { kind: 'cart', what: 'edit' }, { kind: 'cart', what: 'browse' }, ...seeAll(reply.items)]
    case 'editCart': return [
      ...reply.items.slice(0, MAX_LIST_ROWS - 1).map((l): Choice => ({ kind: 'line', variantId: l.variantId })), { kind: 'cart', what: 'clear' }
    ]
    case 'summary': return [{ kind: 'order', what: 'confirm' }, { kind: 'order', what: 'cancel' }, ...seeAll(reply.items)]
    case 'confirm': return [{ kind: 'answer', yes: true }, { kind: 'answer', yes: false }]
    case 'askCode':
    case 'askQuantity':
    case 'askLineQuantity':
    case 'badQuantity':
      return []
    default: return undefined
  }
}

const productChoices = (products: readonly Product[], rows: number): Choice[] =>
  products.slice(0, rows).map((p) => ({ kind: 'product', productId: p.id }))
const seeAll = (items: readonly CartItem[]): Choice[] => cartIsLong(items) ? [{ kind: 'cart', what: 'all' }] : []

/** A variant of the product being chosen from, with that product. */
export function findVariant (context: ConversationContext, variantId: string | undefined): { product: Product, variant: Variant } | undefined {
  const { product } = context
  const variant = product?.variants.find((v) => v.id === variantId)
  return product && variant ? { product, variant } : undefined
}

export function inCart (cart: readonly CartItem[], variantId: string): number {
  return cart.find((line) => line.variantId === variantId)?.quantity ?? 0
}

/** The most of a variant one cart may hold: its stock, or a fixed cap when its stock is not tracked. */
const stockCap = (variant: Variant): number => variant.stock ?? UNTRACKED_MAX

/** How many more of a variant the member may add: its stock less what the cart already holds. */
export function maxQuantity (context: ConversationContext, variantId: string | undefined): number {
  const found = findVariant(context, variantId)
  if (!found) return 0
  return Math.max(0, stockCap(found.variant) - inCart(context.cart, found.variant.id))
}

export function variantTitle (product: Product, variant: Variant): string {
  return product.variants.length > 1 ? `${product.title} (${variant.title})` : product.title
}

/** A quantity in `min`..`max` as the message says it (digits or number words), or undefined. */
export function quantityIn (event: ConversationEvent, max: number, min = 1): number | undefined {
  const text = textOf(event)
  const n = text === undefined ? undefined : quantityOf(text)
  return n !== undefined && n >= min && n <= max ? n : undefined
}

/** Adds a line or raises the quantity of the variant's line: one line per variant, never two. */
export function mergeLine (cart: readonly CartItem[], line: CartItem): CartItem[] {
  const existing = cart.find((l) => l.variantId === line.variantId)
  if (!existing) return [...cart, line]
  return cart.map((l) => l.variantId === line.variantId ? { ...l, quantity: l.quantity + line.quantity } : l)
}

/** The variant's line at exactly `quantity`; 0 removes it. */
export function setLine (cart: readonly CartItem[], variantId: string, quantity: number): CartItem[] {
  return quantity <= 0 ? cart.filter((l) => l.variantId !== variantId) : cart.map((l) => l.variantId === variantId ? { ...l, quantity } : l)
}

export function cartTotal (cart: readonly CartItem[]): number {
  return cart.reduce((sum, line) => sum + line.unitPrice * line.quantity, 0)
}
