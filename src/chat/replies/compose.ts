import { clubSelectScreen } from '../../../flows/screens/club-select.ts'
import { choiceId, type Choice } from '../../../machines/conversation.choices.ts'
import { CART_PREVIEW_LINES, cartTotal, optionsOf } from '../../../machines/conversation.logic.ts'
import { MAX_LIST_ROWS, PRODUCTS_PAGE, SEARCH_ROWS, type CartItem, type Product, type Reply } from '../../../machines/conversation.types.ts'
import { clip, LIMITS, type OutboundMessage } from '../outbound/messages.ts'
import { COPY, gramsText, mediaAnswer, money, statusName, type Copy, type Locale } from './copy.ts'

// Words a reply of the machine in the member's language, as provider messages within the provider's limits.
// The choices come from `optionsOf`, the same list the machine numbers, so "2" always means the second one.

export interface Voice {
  locale: Locale
  currency: string
  /** Where and when the club's members pick up, shown with the order summary. */
  pickup?: { address: string, hours: string } | undefined
}

/** A button or list row as the provider shows it. */
interface Row {
  id: string
  title: string
  description?: string
}

const row = (choice: Choice, title: string, description?: string): Row => ({ id: choiceId(choice), title, ...(description ? { description } : {}) })

export function text (body: string): OutboundMessage {
  return { type: 'text', text: { body: clip(body, LIMITS.textBody) } }
}

/** Up to 3 short choices as reply buttons, otherwise a list (at most 10 rows, clipped titles). */
function choices (body: string, options: Row[], listButton: string): OutboundMessage {
  if (options.length === 0) return text(body)
  const bodyText = clip(body, LIMITS.interactiveBody)
  const asButtons = options.length <= LIMITS.buttons && options.every((o) => o.title.length <= LIMITS.buttonTitle && !o.description)
  if (asButtons) {
    return {
      type: 'interactive',
      interactive: {
        type: 'button', body: { text: bodyText }, action: { buttons: options.map((o) => ({ type: 'reply', reply: { id: o.id, title: o.title } })) }
      },
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

type Money = (n: number) => string

/** Row titles as shown: clipped to the provider's limit and, where two would read the same, numbered. */
function distinctTitles (rows: Row[]): Row[] {
  const clipped = rows.map((r) => clip(r.title, LIMITS.rowTitle))
  return rows.map((row, i) => {
    const title = clipped[i] ?? ''
    if (clipped.indexOf(title) === clipped.lastIndexOf(title)) return { ...row, title }
    const suffix = ` #${clipped.slice(0, i + 1).filter((t) => t === title).length}`
    return { ...row, title: `${clip(row.title, LIMITS.rowTitle - suffix.length)}${suffix}` }
  })
}

const LINE_TITLE = 40

function cartLine (l: CartItem, copy: Copy, fmt: Money): string {
  return copy.cartLine(l.quantity, clip(l.title, LINE_TITLE), fmt(l.unitPrice * l.quantity))
}

/**
 * A cart inside an interactive body: the header, as many lines as fit (at most CART_PREVIEW_LINES, then "and N
 * more"), and always the total and the footer, which are what the member is deciding on.
 */
function cartBody (header: string, items: readonly CartItem[], footer: string[], copy: Copy, fmt: Money): string {
  const tail = [copy.total(fmt(cartTotal(items))), ...footer]
  for (let shown = Math.min(items.length, CART_PREVIEW_LINES); shown >= 0; shown--) {
    const rest = items.length - shown
    const lines = [header, ...items.slice(0, shown).map((l) => cartLine(l, copy, fmt)), ...(rest > 0 ? [copy.andMore(rest)] : []), ...tail]
    const body = lines.join('\n')
    if (body.length <= LIMITS.interactiveBody) return body
  }
  return clip(tail.join('\n'), LIMITS.interactiveBody)
}

function productRow (product: Product, copy: Copy, fmt: Money): Row {
  const choice: Choice = { kind: 'product', productId: product.id }
  const [only] = product.variants
  if (product.variants.length === 1 && only) {
    const price = copy.priceStock(fmt(only.price), only.stock)
    return row(choice, product.title, only.title !== product.title && only.title !== '' ? `${only.title} · ${price}` : price)
  }
  const prices = product.variants.map((v) => v.price)
  return row(choice, product.title, prices.length > 0 ? copy.variantCount(prices.length, fmt(Math.min(...prices))) : undefined)
}

/** The buttons of the cart and the order summary, as `optionsOf` lists them. */
function cartButton (choice: Choice, copy: Copy): Row {
  if (choice.kind === 'order') return row(choice, copy.confirmButtons[choice.what])
  // `optionsOf` offers no other kind here; an id is still a usable title
  return row(choice, choice.kind === 'cart' && choice.what !== 'clear' ? copy.cartButtons[choice.what] : choiceId(choice))
}

function list (body: string, rows: Row[], button: string): OutboundMessage {
  return choices(body, distinctTitles(rows), button)
}

export function compose (reply: Reply, voice: Voice): OutboundMessage[] {
  const copy = COPY[voice.locale]
  const fmt = (n: number) => money(n, voice.currency, voice.locale)
  switch (reply.id) {
    case 'welcome':
      return [
        choices(copy.welcome, [row({ kind: 'link', what: 'login' }, copy.loginButton), row({ kind: 'link', what: 'code' }, copy.codeButton)], copy.loginButton)
      ]
    case 'sessionExpired':
      return [choices(copy.sessionExpired, [row({ kind: 'link', what: 'login' }, copy.loginButton)], copy.loginButton)]
    case 'askCode': return [text(copy.askCode)]
    case 'linkFailed': return [text(copy.linkFailed(reply.reason, reply.attemptsLeft))]
    case 'greeting': return [text(copy.greeting(reply.name))]
    case 'hello': return [text(copy.hello(reply.name))]
    case 'clubs':
      return [list(copy.chooseClub, reply.clubs.map((c) => row({ kind: 'tenant', tenantId: c.id }, c.name)), copy.clubsButton)]
    case 'menu':
      return [choices(copy.menu(reply.clubName), reply.items.map((item) => row({ kind: 'menu', item }, copy.menuItems[item])), copy.menuButton)]
    case 'products': {
      const rows = reply.products.slice(0, PRODUCTS_PAGE).map((p) => productRow(p, copy, fmt))
      for (const choice of optionsOf(reply) ?? []) {
        if (choice.kind !== 'products') continue
        rows.push(choice.what === 'more' ? row(choice, copy.more, copy.moreDescription) : row(choice, copy.first, copy.firstDescription))
      }
      const from = reply.count === 0 ? 0 : reply.offset + 1
      return [list(copy.products(from, reply.offset + Math.min(reply.products.length, PRODUCTS_PAGE), reply.count), rows, copy.productsButton)]
    }
    case 'matches': {
      const rows = reply.products.slice(0, SEARCH_ROWS).map((p) => productRow(p, copy, fmt))
      return [list(copy.matches(reply.query, reply.products.length), rows, copy.productsButton)]
    }
    case 'noMatch': return [text(copy.noMatch(clip(reply.query, 60)))]
    case 'variants': {
      const rows = reply.product.variants.slice(0, MAX_LIST_ROWS).map((v) =>
        row({ kind: 'variant', variantId: v.id }, v.title, copy.priceStock(fmt(v.price), v.stock)))
      return [list(copy.variants(reply.product.title), rows, copy.variantsButton)]
    }
    case 'noProducts': return [text(copy.noProducts)]
    case 'productsFailed': return [text(copy.productsFailed)]
    case 'outOfStock': return [text(copy.outOfStock(reply.title))]
    case 'askQuantity': return [text(copy.askQuantity(reply.title, fmt(reply.price), reply.stock, reply.max))]
    case 'badQuantity': return [text(copy.badQuantity(reply.max))]
    case 'added': return [text(copy.added(reply.quantity, reply.title))]
    case 'addFailed': return [text(reply.refusal?.kind === 'limit'
      ? copy.addRefused(reply.refusal, gramsText(reply.refusal.remaining, voice.locale), reply.units)
      : copy.addFailed(reply.reason))]
    case 'cart': {
      const options = (optionsOf(reply) ?? []).map((choice) => cartButton(choice, copy))
      return [choices(cartBody(copy.cart, reply.items, [], copy, fmt), options, copy.menuButton)]
    }
    case 'cartAll':
      return [text([copy.cart, ...reply.items.map((l) => cartLine(l, copy, fmt)), copy.total(fmt(cartTotal(reply.items)))].join('\n'))]
    case 'editCart': {
      const rows = reply.items.slice(0, MAX_LIST_ROWS - 1).map((l) =>
        row({ kind: 'line', variantId: l.variantId }, l.title, copy.lineRow(l.quantity, fmt(l.unitPrice * l.quantity))))
      return [list(copy.editCart, [...rows, row({ kind: 'cart', what: 'clear' }, copy.clearRow, copy.clearDescription)], copy.cartButtons.edit)]
    }
    case 'askLineQuantity':
      // numbers typed here are the new quantity (optionsOf offers none), the button removes the line
      return [choices(copy.askLineQuantity(reply.title, reply.quantity, reply.max), [row({ kind: 'removeLine' }, copy.removeButton)], copy.removeButton)]
    case 'lineSet': return [text(copy.lineSet(reply.title, reply.quantity))]
    case 'lineFailed': return [text(copy.lineFailed(reply.reason))]
    case 'confirm': {
      const body = reply.what === 'clearCart' ? copy.confirmClear : copy.confirmUnlink(reply.clubName)
      return [choices(body, [row({ kind: 'answer', yes: true }, copy.yesNo[reply.what]), row({ kind: 'answer', yes: false }, copy.yesNo.no)], copy.menuButton)]
    }
    case 'cartEmpty': return [text(copy.cartEmpty)]
    case 'cartCleared': return [text(copy.cartCleared)]
    case 'summary': {
      const options = (optionsOf(reply) ?? []).map((choice) => cartButton(choice, copy))
      return [
        choices(
          cartBody(copy.summary, reply.items, [copy.pickupCash, ...(voice.pickup ? [copy.pickupAt(voice.pickup.address, voice.pickup.hours)] : [])], copy, fmt),
          options, copy.menuButton
        )
      ]
    }
    case 'repeated': return [text(copy.repeated(reply.missing))]
    case 'repeatFailed': return [text(copy.repeatFailed(reply.reason))]
    case 'language': return [text(COPY[reply.locale].language)]
    case 'updates': return [text(reply.on ? copy.updatesOn : copy.updatesOff)]
    case 'orderPlaced': return [text(copy.orderPlaced(reply.displayId, fmt(reply.total)))]
    case 'orderFailed': {
      const { refusal } = reply
      if (!refusal) return [text(copy.orderFailed(reply.reason))]
      const why = refusal.kind === 'standing' && refusal.reason === 'status' && refusal.status
        ? copy.standing(refusal.status)
        : copy.orderRefused(refusal, (n) => gramsText(n, voice.locale))
      return [text(why)]
    }
    case 'orderUnknown': return [text(copy.orderUnknown)]
    case 'timeout': return [text(copy.timeout)]
    case 'unlinked': return [text(copy.unlinked(reply.clubName))]
    case 'unsupported': return [text(mediaAnswer(copy, reply.media, voice.pickup))]
    case 'hint': return [text(copy.hint)]
    case 'help': return [text(copy.help[reply.state])]
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
          flow_action_payload: { screen: 'CLUB_SELECT', data: clubSelectScreen(clubs, undefined, voice.locale).data },
        },
      },
    },
  }
}

/** `club`: the orders API lists an admin every order of the club, not their own (growers and members see their own). */
export function ordersReport (orders: Array<{ displayId: string | number, status: string, total: number }>, voice: Voice, club = false): OutboundMessage {
  const copy = COPY[voice.locale]
  return text(
    copy.orders(orders.map((o) => copy.orderLine(String(o.displayId), statusName(copy, o.status), money(o.total, voice.currency, voice.locale))), club)
  )
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
