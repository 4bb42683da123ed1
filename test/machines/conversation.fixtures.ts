import { IDLE_RESET_MS, type AccountRef, type ConversationEvent, type Product } from '../../machines/conversation.types.ts'

// Sample worlds for the conversation machine's tests: clubs, a catalog page, and one event of every kind.

const FAR = 8_640_000_000_000
export const NORTE: AccountRef = { tenantId: 'club-norte', tenantName: 'Club Norte', name: 'Ana', role: 'grower', linkedAt: 1, expiresAt: FAR }
export const SUR: AccountRef = { tenantId: 'club-sur', tenantName: 'Club Sur', name: 'Ana', role: 'member', linkedAt: 2, expiresAt: FAR }
export const EXPIRED: AccountRef = { ...NORTE, expiresAt: 0 }
export const CODE = '123e4567-e89b-12d3-a456-426614174000'

export const CATALOG: Product[] = [
  { id: 'p1', title: 'Aceite', variants: [{ id: 'v1', title: '30 ml', price: 100, stock: 5 }] },
  { id: 'p2', title: 'Flores', variants: [{ id: 'v2a', title: '5 g', price: 50, stock: 3 }, { id: 'v2b', title: '10 g', price: 90, stock: 0 }] },
  { id: 'p3', title: 'Agotado', variants: [{ id: 'v3', title: 'u', price: 10, stock: 0 }] },
  { id: 'p4', title: 'Gelato', variants: [{ id: 'v4', title: 'Gelato', price: 70, stock: null }] },
  { id: 'p5', title: 'Gelato Cake', variants: [{ id: 'v5', title: 'Gelato Cake', price: 80, stock: 4 }] },
]

/** Numbers, codes, garbage, emoji and the words of both languages: enough to take every move of the machine. */
export const TEXTS = [
  'hola', '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', 'dos', 'menu', 'cancelar', 'ayuda', 'si', 'no',
  'English', 'Español', 'repetir', 'carrito', 'norte', '🙂', 'gelato', CODE, `LINK-${CODE}`, 'LINK-nope',
]
/** More of the same kinds, for the random walks. */
export const MORE_TEXTS = ['8', '10', '99', 'help', 'cancel', 'español', 'Club Sur', 'asdfgh', 'quiero 2 gelato', 'flores 5g', 'yes', 'hi']
export const REPLIES = [
  'link:login', 'link:code', 'tenant:club-norte', 'tenant:club-sur', 'tenant:club-x',
  'menu:browse', 'menu:cart', 'menu:repeat', 'menu:orders', 'menu:notifications', 'menu:crops', 'menu:switch-club', 'menu:language', 'menu:unlink',
  'menu:updates-off',
  'product:p1', 'product:p2', 'product:p3', 'product:p4', 'variant:v2a', 'variant:v2b', 'products:more', 'products:first',
  'cart:checkout', 'cart:browse', 'cart:edit', 'cart:all', 'cart:clear', 'line:v1', 'line:remove', 'confirm:yes', 'confirm:no',
  'order:confirm', 'order:cancel',
]

const LINE = { variantId: 'v1', productId: 'p1', title: 'Aceite', quantity: 1, unitPrice: 100 }
/** A cart too long to show whole: the summary offers `cart:all`. */
export const LONG_CART = Array.from({ length: 12 }, (_, i) => ({ ...LINE, variantId: `vl${i}`, title: `Producto de prueba con un nombre largo ${i}` }))
const catalogLoaded = (query: string, quantity?: number): ConversationEvent =>
  ({ type: 'CATALOG_LOADED', products: CATALOG, query, ...(quantity === undefined ? {} : { quantity }) })

export function results (selectedVariantId: string | undefined): ConversationEvent[] {
  return [
    { type: 'LINK_OK', tenantId: 'club-norte', accounts: [NORTE] },
    { type: 'LINK_OK', tenantId: 'club-sur', accounts: [NORTE, SUR] },
    { type: 'LINK_FAILED', reason: 'not_found' },
    { type: 'PRODUCTS_LOADED', products: CATALOG, offset: 0, count: 12 },
    { type: 'PRODUCTS_LOADED', products: [], offset: 0, count: 0 },
    { type: 'PRODUCTS_LOADED', products: CATALOG, offset: 9, count: 14 },
    { type: 'PRODUCTS_FAILED' },
    ...CATALOG.map((product): ConversationEvent => ({ type: 'PRODUCT_LOADED', product })),
    { type: 'PRODUCT_LOADED', product: undefined },
    { type: 'SHOWN_LOADED', products: CATALOG },
    { type: 'ADDED', cartId: 'cart_1', variantId: selectedVariantId ?? 'v1', quantity: 2 },
    // the cart held became an order (its answer lost): the service put the product in a fresh one
    { type: 'ADDED', cartId: 'cart_2', variantId: selectedVariantId ?? 'v1', quantity: 1 },
    { type: 'ADD_FAILED', reason: 'stock' },
    { type: 'ORDER_PLACED', displayId: '7', total: 200 },
    { type: 'ORDER_FAILED', reason: 'unavailable' },
    { type: 'ORDER_UNKNOWN' },
    { type: 'AUTH_EXPIRED' },
    catalogLoaded('xyzzy'),
    catalogLoaded('aceite'),
    catalogLoaded('2 gelato', 2),
    catalogLoaded('agotado'),
    catalogLoaded('flores'),
    catalogLoaded('2 gel', 2),
    { type: 'LINE_SET', variantId: 'v1', quantity: 1 },
    { type: 'LINE_SET', variantId: 'v1', quantity: 0 },
    { type: 'LINE_FAILED', reason: 'stock' },
    { type: 'REPEATED', cartId: 'cart_1', lines: [LINE], missing: ['Agotado'] },
    { type: 'REPEATED', cartId: 'cart_1', lines: [], missing: ['Agotado'] },
    { type: 'REPEATED', cartId: 'cart_1', lines: LONG_CART, missing: [] },
    { type: 'REPEAT_FAILED', reason: 'none' },
  ]
}

/** Every kind of event at a moment: inbound ones carrying `accounts`, a late one past the idle reset, and results. */
export function eventsAt (at: number, accounts: AccountRef[], selectedVariantId: string | undefined): ConversationEvent[] {
  const inbound = (a: AccountRef[], when = at): ConversationEvent[] => [
    ...TEXTS.map((text) => ({ type: 'TEXT' as const, text, at: when, accounts: a })),
    ...REPLIES.map((id) => ({ type: 'REPLY' as const, id, title: id, at: when, accounts: a })),
    { type: 'UNSUPPORTED', messageType: 'image', at: when, accounts: a },
  ]
  return [
    ...inbound(accounts),
    { type: 'TEXT', text: '1', at: at + IDLE_RESET_MS + 1, accounts },
    { type: 'REPLY', id: 'menu:browse', title: '', at: at + IDLE_RESET_MS + 1, accounts },
    { type: 'TEXT', text: 'hola', at, accounts: [EXPIRED] },
    { type: 'TEXT', text: `LINK-${CODE}`, at, accounts: [EXPIRED] },
    { type: 'REPLY', id: 'menu:browse', title: '', at, accounts: [EXPIRED] },
    { type: 'LINKED', at, accounts: [NORTE] },
    { type: 'LINKED', at, accounts: [NORTE, SUR] },
    // the member has turned chat updates off: the menu offers them on again (7th for a grower of one club)
    ...[
      { type: 'REPLY' as const, id: 'menu:updates-on', title: '' }, { type: 'TEXT' as const, text: 'menu' }, { type: 'TEXT' as const, text: '7' }
    ].map((e) => ({ ...e, at, accounts: accounts.map((a) => ({ ...a, updates: false })) })),
    ...results(selectedVariantId),
  ]
}
