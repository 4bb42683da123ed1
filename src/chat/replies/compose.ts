import { clubSelectScreen } from '../../../flows/screens/club-select.ts'
import { cartTotal, optionsOf } from '../../../machines/conversation.logic.ts'
import { PRODUCTS_PAGE, type CartItem, type Product, type Reply } from '../../../machines/conversation.types.ts'
import { clip, LIMITS, type OutboundMessage } from '../outbound/messages.ts'
import { COPY, money, statusName, type Copy, type Locale } from './copy.ts'

// Words a reply of the machine in the club's language, as provider messages within the provider's limits.
// The choices come from `optionsOf`, the same list the machine numbers, so "2" always means the second one.

export interface Voice {
  locale: Locale
  currency: string
  /** Where and when the club's members pick up, shown with the order summary. */
  pickup?: { address: string, hours: string } | undefined
}

interface Choice {
  id: string
  title: string
  description?: string
}

export function text (body: string): OutboundMessage {
  return { type: 'text', text: { body: clip(body, LIMITS.textBody) } }
}

/** Up to 3 short choices as reply buttons, otherwise a list (at most 10 rows, clipped titles). */
export function choices (body: string, options: Choice[], listButton: string): OutboundMessage {
  if (options.length === 0) return text(body)
  const bodyText = clip(body, LIMITS.interactiveBody)
  const asButtons = options.length <= LIMITS.buttons && options.every((o) => o.title.length <= LIMITS.buttonTitle && !o.description)
  if (asButtons) {
    return {
      type: 'interactive',
      interactive: { type: 'button', body: { text: bodyText }, action: { buttons: options.map((o) => ({ type: 'reply', reply: { id: o.id, title: o.title } })) } },
    }
  }
  const rows = options.slice(0, LIMITS.rows).map((o) => ({
    id: o.id,
    title: clip(o.title, LIMITS.rowTitle),
    ...(o.description ? { description: clip(o.description, LIMITS.rowDescription) } : {}),
  }))
  return {
    type: 'interactive',
    interactive: { type: 'list', body: { text: bodyText }, action: { button: clip(listButton, LIMITS.listButton), sections: [{ rows }] } },
  }
}

function cartLines (items: readonly CartItem[], copy: Copy, fmt: (n: number) => string): string {
  return [...items.map((l) => copy.cartLine(l.quantity, l.title, fmt(l.unitPrice * l.quantity))), copy.total(fmt(cartTotal(items)))].join('\n')
}

function productRow (product: Product, copy: Copy, fmt: (n: number) => string): Choice {
  const prices = product.variants.map((v) => v.price)
  const stock = product.variants.reduce((n, v) => n + v.stock, 0)
  const description = product.variants.length > 1 && prices.length > 0
    ? copy.fromPrice(fmt(Math.min(...prices)))
    : copy.priceStock(fmt(prices[0] ?? 0), stock)
  return { id: `product:${product.id}`, title: product.title, description }
}

export function compose (reply: Reply, voice: Voice): OutboundMessage[] {
  const copy = COPY[voice.locale]
  const fmt = (n: number) => money(n, voice.currency, voice.locale)
  switch (reply.id) {
    case 'welcome':
      return [choices(copy.welcome, [{ id: 'link:login', title: copy.loginButton }, { id: 'link:code', title: copy.codeButton }], copy.loginButton)]
    case 'sessionExpired':
      return [choices(copy.sessionExpired, [{ id: 'link:login', title: copy.loginButton }], copy.loginButton)]
    case 'askCode': return [text(copy.askCode)]
    case 'linkFailed': return [text(copy.linkFailed(reply.reason, reply.attemptsLeft))]
    case 'greeting': return [text(copy.greeting(reply.name))]
    case 'clubs':
      return [choices(copy.chooseClub, reply.clubs.map((c) => ({ id: `tenant:${c.id}`, title: c.name })), copy.clubsButton)]
    case 'menu':
      return [choices(copy.menu(reply.clubName), reply.items.map((item) => ({ id: `menu:${item}`, title: copy.menuItems[item] })), copy.menuButton)]
    case 'products': {
      const rows = reply.products.slice(0, PRODUCTS_PAGE).map((p) => productRow(p, copy, fmt))
      if (optionsOf(reply)?.includes('products:more')) rows.push({ id: 'products:more', title: copy.more, description: copy.moreDescription })
      const from = reply.count === 0 ? 0 : reply.offset + 1
      return [choices(copy.products(from, reply.offset + Math.min(reply.products.length, PRODUCTS_PAGE), reply.count), rows, copy.productsButton)]
    }
    case 'variants': {
      const rows = reply.product.variants.map((v) => ({ id: `variant:${v.id}`, title: v.title, description: copy.priceStock(fmt(v.price), v.stock) }))
      return [choices(copy.variants(reply.product.title), rows, copy.variantsButton)]
    }
    case 'noProducts': return [text(copy.noProducts)]
    case 'productsFailed': return [text(copy.productsFailed)]
    case 'outOfStock': return [text(copy.outOfStock(reply.title))]
    case 'askQuantity': return [text(copy.askQuantity(reply.title, fmt(reply.price), reply.stock, reply.max))]
    case 'badQuantity': return [text(copy.badQuantity(reply.max))]
    case 'added': return [text(copy.added(reply.quantity, reply.title))]
    case 'addFailed': return [text(copy.addFailed(reply.reason))]
    case 'cart': {
      const b = copy.cartButtons
      return [choices(`${copy.cart}\n${cartLines(reply.items, copy, fmt)}`, [
        { id: 'cart:checkout', title: b.checkout },
        { id: 'cart:browse', title: b.browse },
        { id: 'cart:clear', title: b.clear },
      ], copy.menuButton)]
    }
    case 'cartEmpty': return [text(copy.cartEmpty)]
    case 'cartCleared': return [text(copy.cartCleared)]
    case 'summary': {
      const b = copy.confirmButtons
      const pickup = voice.pickup ? `\n${copy.pickupAt(voice.pickup.address, voice.pickup.hours)}` : ''
      return [choices(`${copy.summary}\n${cartLines(reply.items, copy, fmt)}\n${copy.pickupCash}${pickup}`, [
        { id: 'order:confirm', title: b.confirm },
        { id: 'order:cancel', title: b.cancel },
      ], copy.menuButton)]
    }
    case 'orderPlaced': return [text(copy.orderPlaced(reply.displayId, fmt(reply.total)))]
    case 'orderFailed': return [text(copy.orderFailed(reply.reason))]
    case 'timeout': return [text(copy.timeout)]
    case 'unlinked': return [text(copy.unlinked(reply.clubName))]
    case 'unsupported': return [text(copy.unsupported)]
    case 'hint': return [text(copy.hint)]
    case 'help': return [text(copy.help)]
  }
}

/** The in-chat login form: a flow message whose first screen lists the clubs; `flow_token` is the phone. */
export function loginForm (phone: string, flowId: string, clubs: Array<{ id: string, name: string, locale: Locale }>, voice: Voice): OutboundMessage {
  const copy = COPY[voice.locale]
  return {
    type: 'interactive',
    interactive: {
      type: 'flow',
      body: { text: copy.loginForm },
      action: {
        name: 'flow',
        parameters: {
          flow_message_version: '3',
          flow_token: phone,
          flow_id: flowId,
          flow_cta: clip(copy.loginCta, LIMITS.buttonTitle),
          flow_action: 'navigate',
          flow_action_payload: { screen: 'CLUB_SELECT', data: clubSelectScreen(clubs).data },
        },
      },
    },
  }
}

/** `club`: the orders API lists staff every order of the club, not their own. */
export function ordersReport (orders: Array<{ displayId: string | number, status: string, total: number }>, voice: Voice, club = false): OutboundMessage {
  const copy = COPY[voice.locale]
  return text(copy.orders(orders.map((o) => copy.orderLine(String(o.displayId), statusName(copy, o.status), money(o.total, voice.currency, voice.locale))), club))
}

export function notificationsReport (unread: number, latest: Array<{ title: string, isRead: boolean }>, voice: Voice): OutboundMessage {
  return text(COPY[voice.locale].notifications(unread, latest.map((n) => `${n.isRead ? '·' : '•'} ${n.title}`)))
}

export function cropsReport (crops: Array<{ name: string, status: string }>, voice: Voice): OutboundMessage {
  const groups = new Map<string, string[]>()
  for (const crop of crops) groups.set(crop.status, [...(groups.get(crop.status) ?? []), crop.name])
  const copy = COPY[voice.locale]
  return text(copy.crops([...groups].map(([status, names]) => ({ status: statusName(copy, status), names }))))
}
