import type { MenuItem } from './conversation.types.ts'

// The reply ids of the bot's buttons and list rows: built here, read here, and nowhere else spelled out, so the
// machine, `optionsOf` and the reply composer always agree.

export type Choice =
  | { kind: 'link', what: 'login' | 'code' }
  | { kind: 'tenant', tenantId: string }
  | { kind: 'menu', item: MenuItem }
  | { kind: 'product', productId: string }
  | { kind: 'variant', variantId: string }
  | { kind: 'products', what: 'more' | 'first' }
  | { kind: 'cart', what: 'checkout' | 'browse' | 'edit' | 'clear' | 'all' }
  | { kind: 'line', variantId: string }
  | { kind: 'line', what: 'remove' }
  | { kind: 'order', what: 'confirm' | 'cancel' }
  | { kind: 'answer', yes: boolean }

const FIXED = {
  login: 'link:login',
  code: 'link:code',
  more: 'products:more',
  first: 'products:first',
  checkout: 'cart:checkout',
  browse: 'cart:browse',
  edit: 'cart:edit',
  clear: 'cart:clear',
  all: 'cart:all',
  removeLine: 'line:remove',
  confirmOrder: 'order:confirm',
  cancelOrder: 'order:cancel',
  yes: 'confirm:yes',
  no: 'confirm:no',
} as const

export const CHOICE = {
  ...FIXED,
  tenant: (tenantId: string) => `tenant:${tenantId}`,
  menu: (item: MenuItem) => `menu:${item}`,
  product: (productId: string) => `product:${productId}`,
  variant: (variantId: string) => `variant:${variantId}`,
  line: (variantId: string) => `line:${variantId}`,
}

const MENU_ITEMS: ReadonlySet<string> = new Set<MenuItem>(['browse', 'cart', 'repeat', 'orders', 'notifications', 'crops', 'switch-club', 'person', 'language', 'unlink', 'updates-off', 'updates-on'])

/** What a reply id means; undefined for an id the bot never offers. */
export function parseChoice (id: string): Choice | undefined {
  switch (id) {
    case FIXED.login: return { kind: 'link', what: 'login' }
    case FIXED.code: return { kind: 'link', what: 'code' }
    case FIXED.more: return { kind: 'products', what: 'more' }
    case FIXED.first: return { kind: 'products', what: 'first' }
    case FIXED.checkout: return { kind: 'cart', what: 'checkout' }
    case FIXED.browse: return { kind: 'cart', what: 'browse' }
    case FIXED.edit: return { kind: 'cart', what: 'edit' }
    case FIXED.clear: return { kind: 'cart', what: 'clear' }
    case FIXED.all: return { kind: 'cart', what: 'all' }
    case FIXED.removeLine: return { kind: 'line', what: 'remove' }
    case FIXED.confirmOrder: return { kind: 'order', what: 'confirm' }
    case FIXED.cancelOrder: return { kind: 'order', what: 'cancel' }
    case FIXED.yes: return { kind: 'answer', yes: true }
    case FIXED.no: return { kind: 'answer', yes: false }
  }
  const colon = id.indexOf(':')
  const prefix = id.slice(0, colon)
  const rest = id.slice(colon + 1)
  if (colon < 1 || rest === '') return undefined
  switch (prefix) {
    case 'tenant': return { kind: 'tenant', tenantId: rest }
    case 'menu': return MENU_ITEMS.has(rest) ? { kind: 'menu', item: rest as MenuItem } : undefined
    case 'product': return { kind: 'product', productId: rest }
    case 'variant': return { kind: 'variant', variantId: rest }
    case 'line': return { kind: 'line', variantId: rest }
    default: return undefined
  }
}
