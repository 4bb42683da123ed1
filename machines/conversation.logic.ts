import {
  MAX_LIST_ROWS,
  PRODUCTS_PAGE,
  type AccountRef,
  type CartItem,
  type ConversationContext,
  type ConversationEvent,
  type MenuItem,
  type Product,
  type Reply,
  type Variant,
} from './conversation.types.ts'

// The conversation's pure rules, kept out of the machine's config so that tests and the reply composer share them.

export const WORDS = {
  menu: ['menu', 'menú'],
  cancel: ['cancel', 'cancelar'],
  help: ['help', 'ayuda'],
} as const
export type Word = keyof typeof WORDS

const NUMBER = /^\d{1,3}$/
const LINK_PREFIX = /^link-\s*(\S+)$/i
// Link codes are UUIDs (spec: at least 10 characters); anything else is refused without a call.
const CODE_SHAPE = /^[0-9a-f-]{10,64}$/i

function normalise (text: string): string {
  return text.trim().toLowerCase()
}

export function wordOf (event: ConversationEvent): Word | undefined {
  if (event.type !== 'TEXT') return undefined
  const text = normalise(event.text)
  for (const [word, spellings] of Object.entries(WORDS) as Array<[Word, readonly string[]]>) {
    if (spellings.includes(text)) return word
  }
  return undefined
}

/** The reply id a message picks: a button or row, or the position number of one of the choices last offered. */
export function choiceOf (context: ConversationContext, event: ConversationEvent): string | undefined {
  if (event.type === 'REPLY') return event.id
  if (event.type !== 'TEXT') return undefined
  const text = event.text.trim()
  if (!NUMBER.test(text)) return undefined
  return context.options[Number(text) - 1]
}

/** `LINK-<code>` in any state. */
export function linkCodeOf (event: ConversationEvent): string | undefined {
  if (event.type !== 'TEXT') return undefined
  return LINK_PREFIX.exec(event.text.trim())?.[1]
}

/** A code as typed while the bot waits for one: `LINK-<code>` or the bare code. */
export function typedCodeOf (event: ConversationEvent): string | undefined {
  if (event.type !== 'TEXT') return undefined
  return linkCodeOf(event) ?? event.text.trim()
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

export function menuItems (context: ConversationContext): MenuItem[] {
  const now = context.lastActivity
  const account = currentAccount(context, context.accounts, now)
  const items: MenuItem[] = ['browse', 'cart', 'orders', 'notifications']
  if (account && account.role !== 'member') items.push('crops')
  if (validAccounts(context.accounts, now).length >= 2) items.push('switch-club')
  items.push('unlink')
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

export function hasMoreProducts (offset: number, shown: number, count: number): boolean {
  return offset + shown < count
}

export function nextProductsOffset (context: ConversationContext): number {
  const next = context.catalogOffset + PRODUCTS_PAGE
  return next < context.catalogCount ? next : 0
}

/**
 * The reply ids of the choices a reply offers, in the order they are shown. Replies that ask for free text
 * offer none ([]); replies that only inform leave the previous choices in force (undefined).
 */
export function optionsOf (reply: Reply): string[] | undefined {
  switch (reply.id) {
    case 'welcome': return ['link:login', 'link:code']
    case 'sessionExpired': return ['link:login']
    case 'clubs': return reply.clubs.slice(0, MAX_LIST_ROWS).map((c) => `tenant:${c.id}`)
    case 'menu': return reply.items.map((item) => `menu:${item}`)
    case 'products': {
      const rows = reply.products.slice(0, PRODUCTS_PAGE).map((p) => `product:${p.id}`)
      return hasMoreProducts(reply.offset, rows.length, reply.count) ? [...rows, 'products:more'] : rows
    }
    case 'variants': return reply.product.variants.slice(0, MAX_LIST_ROWS).map((v) => `variant:${v.id}`)
    case 'cart': return ['cart:checkout', 'cart:browse', 'cart:clear']
    case 'summary': return ['order:confirm', 'order:cancel']
    case 'askCode':
    case 'askQuantity':
    case 'badQuantity':
      return []
    default: return undefined
  }
}

export function findProduct (context: ConversationContext, productId: string | undefined): Product | undefined {
  return context.catalog.find((p) => p.id === productId)
}

export function findVariant (context: ConversationContext, variantId: string | undefined): { product: Product, variant: Variant } | undefined {
  for (const product of context.catalog) {
    const variant = product.variants.find((v) => v.id === variantId)
    if (variant) return { product, variant }
  }
  return undefined
}

export function inCart (cart: readonly CartItem[], variantId: string): number {
  return cart.find((line) => line.variantId === variantId)?.quantity ?? 0
}

/** How many more of a variant the member may add: its stock less what the cart already holds. */
export function maxQuantity (context: ConversationContext, variantId: string | undefined): number {
  const found = findVariant(context, variantId)
  if (!found) return 0
  return Math.max(0, found.variant.stock - inCart(context.cart, found.variant.id))
}

export function variantTitle (product: Product, variant: Variant): string {
  return product.variants.length > 1 ? `${product.title} (${variant.title})` : product.title
}

/** A whole number in 1..max, or undefined. */
export function quantityOf (event: ConversationEvent, max: number): number | undefined {
  if (event.type !== 'TEXT') return undefined
  const text = event.text.trim()
  if (!NUMBER.test(text)) return undefined
  const n = Number(text)
  return n >= 1 && n <= max ? n : undefined
}

/** Adds a line or raises the quantity of the variant's line: one line per variant, never two. */
export function mergeLine (cart: readonly CartItem[], line: CartItem): CartItem[] {
  const existing = cart.find((l) => l.variantId === line.variantId)
  if (!existing) return [...cart, line]
  return cart.map((l) => l.variantId === line.variantId ? { ...l, quantity: l.quantity + line.quantity } : l)
}

export function cartTotal (cart: readonly CartItem[]): number {
  return cart.reduce((sum, line) => sum + line.unitPrice * line.quantity, 0)
}
