import type { MenuItem } from './conversation.types.ts'

// The bot's buttons and list rows as typed choices. Their reply ids are spelled here and nowhere else: `choiceId`
// builds one, `parseChoice` reads one, so the machine, `optionsOf` and the reply composer always agree.

export type Choice =
  | { kind: 'link', what: 'login' | 'code' }
  | { kind: 'tenant', tenantId: string }
  | { kind: 'menu', item: MenuItem }
  | { kind: 'product', productId: string }
  | { kind: 'variant', variantId: string }
  | { kind: 'products', what: 'more' | 'first' }
  | { kind: 'cart', what: 'checkout' | 'browse' | 'edit' | 'clear' | 'all' }
  | { kind: 'line', variantId: string }
  | { kind: 'removeLine' }
  | { kind: 'order', what: 'confirm' | 'cancel' }
  | { kind: 'answer', yes: boolean }

/** The reply id of a choice, as sent to the provider and kept in the session's options. */
export function choiceId (choice: Choice): string {
  switch (choice.kind) {
    case 'link':
    case 'products':
    case 'cart':
    case 'order':
      return `${choice.kind}:${choice.what}`
    case 'tenant': return `tenant:${choice.tenantId}`
    case 'menu': return `menu:${choice.item}`
    case 'product': return `product:${choice.productId}`
    case 'variant': return `variant:${choice.variantId}`
    case 'line': return `line:${choice.variantId}`
    case 'removeLine': return 'line:remove'
    case 'answer': return choice.yes ? 'confirm:yes' : 'confirm:no'
  }
}

const MENU_ITEMS: readonly MenuItem[] = [
  'browse', 'cart', 'repeat', 'orders', 'notifications', 'crops', 'switch-club', 'person', 'language', 'unlink', 'updates-off', 'updates-on'
]
const LINK = ['login', 'code'] as const
const PRODUCTS = ['more', 'first'] as const
const CART = ['checkout', 'browse', 'edit', 'clear', 'all'] as const
const ORDER = ['confirm', 'cancel'] as const

const oneOf = <T extends string>(values: readonly T[], value: string): value is T => (values as readonly string[]).includes(value)

/** What a reply id means; undefined for an id the bot never offers. */
export function parseChoice (id: string): Choice | undefined {
  const colon = id.indexOf(':')
  const prefix = id.slice(0, colon)
  const rest = id.slice(colon + 1)
  if (colon < 1 || rest === '') return undefined
  switch (prefix) {
    case 'link': return oneOf(LINK, rest) ? { kind: 'link', what: rest } : undefined
    case 'tenant': return { kind: 'tenant', tenantId: rest }
    case 'menu': return oneOf(MENU_ITEMS, rest) ? { kind: 'menu', item: rest } : undefined
    case 'product': return { kind: 'product', productId: rest }
    case 'variant': return { kind: 'variant', variantId: rest }
    case 'products': return oneOf(PRODUCTS, rest) ? { kind: 'products', what: rest } : undefined
    case 'cart': return oneOf(CART, rest) ? { kind: 'cart', what: rest } : undefined
    case 'line': return rest === 'remove' ? { kind: 'removeLine' } : { kind: 'line', variantId: rest }
    case 'order': return oneOf(ORDER, rest) ? { kind: 'order', what: rest } : undefined
    case 'confirm': return rest === 'yes' || rest === 'no' ? { kind: 'answer', yes: rest === 'yes' } : undefined
    default: return undefined
  }
}

/** The same choice: two ids that mean one thing compare equal. */
export function sameChoice (a: Choice | undefined, b: Choice): boolean {
  return a !== undefined && choiceId(a) === choiceId(b)
}
