import { assertEvent, enqueueActions, setup } from 'xstate'
import { choiceId, sameChoice, type Choice } from './conversation.choices.ts'
import {
  answerOf,
  choiceOf,
  clubName,
  clubNamed,
  clubsReply,
  currentAccount,
  findVariant,
  inCart,
  linkCodeOf,
  localeOf,
  looksLikeCode,
  maxQuantity,
  menuItems,
  menuReply,
  mergeLine,
  nextProductsOffset,
  optionsOf,
  otherLocale,
  quantityIn,
  setLine,
  textOf,
  typedCodeOf,
  validAccounts,
  variantTitle,
  wordIn,
} from './conversation.logic.ts'
import { matchProducts, orderWords, type ProductMatch, type Word } from './conversation.text.ts'
import {
  IDLE_RESET_MS,
  MAX_LINK_FAILURES,
  SEARCH_ROWS,
  UNTRACKED_MAX,
  type AccountRef,
  type CommerceFailure,
  type ConversationContext,
  type ConversationEffects,
  type ConversationEvent,
  type ConversationState,
  type Locale,
  type MenuItem,
  type Pending,
  type Product,
  type Reply,
  type Report,
  type Variant,
} from './conversation.types.ts'

// One conversation per phone. Pure: every effect on the world is a named action
// returned by XState's `transition()`; the runtime performs it and feeds the result back as an event.
// Read the chart at the bottom first: every guard and action it names is defined in `setup` above it.

interface Args {
  context: ConversationContext
  event: ConversationEvent
}

/** The context as the event's facts (time, links) say it is now, for guards that run before `touch`. */
function present ({ context, event }: Args): ConversationContext {
  return 'at' in event ? { ...context, lastActivity: event.at, accounts: event.accounts } : context
}

function now (args: Args): number {
  return present(args).lastActivity
}

function accountsOf ({ context, event }: Args): AccountRef[] {
  return 'accounts' in event ? event.accounts : context.accounts
}

/**
 * The club every effect of a linked state acts in. No linked state is entered without one (the guards that lead
 * there check the link, and the property tests check that they do), so its absence is a bug, not an input.
 */
function clubOf (context: ConversationContext): string {
  if (context.tenantId === undefined) throw new Error('conversation: an effect of a club asked for outside a club')
  return context.tenantId
}

/**
 * The item a pick settles on: a picked product once loaded, when it has one variant; or a variant of the product
 * being chosen from.
 */
function pickedVariant (args: Args): Variant | undefined {
  const { event } = args
  if (event.type === 'PRODUCT_LOADED') return event.product?.variants.length === 1 ? event.product.variants[0] : undefined
  const choice = choiceOf(args.context, event)
  return choice?.kind === 'variant' ? findVariant(args.context, choice.variantId)?.variant : undefined
}

/** The product a pick loaded, as the one being chosen from. */
function loadedProduct ({ event }: Args): Product | undefined {
  assertEvent(event, 'PRODUCT_LOADED')
  return event.product
}

function chosenTenant (args: Args): string | undefined {
  const { event } = args
  if (event.type === 'LINK_OK') return event.tenantId
  if (event.type === 'LINKED') {
    const valid = validAccounts(event.accounts, event.at)
    return valid.length === 1 ? valid[0]?.tenantId : undefined
  }
  const choice = choiceOf(args.context, event)
  if (choice?.kind === 'tenant') return choice.tenantId
  const text = textOf(event)
  return text === undefined ? undefined : clubNamed(text, accountsOf(args), now(args))?.tenantId
}

function greeted (args: Args): string {
  const { event } = args
  const valid = validAccounts(accountsOf(args), now(args))
  const account = event.type === 'LINK_OK'
    ? valid.find((a) => a.tenantId === event.tenantId)
    : [...valid].sort((a, b) => b.linkedAt - a.linkedAt)[0]
  return account?.name ?? ''
}

function selectedItem (context: ConversationContext) {
  const found = findVariant(context, context.selectedVariantId)
  return found ? { ...found, title: variantTitle(found.product, found.variant) } : undefined
}

/** The club left when the current one is unlinked, if another is still linked. */
function remainingClub (args: Args): AccountRef | undefined {
  return validAccounts(accountsOf(args), now(args)).find((a) => a.tenantId !== args.context.tenantId)
}

/** What a search found: the matches of the words the member typed, in the catalog the runtime loaded. */
function searchOf ({ event }: Args): { query: string, quantity?: number, matches: ProductMatch[] } {
  assertEvent(event, 'CATALOG_LOADED')
  const matches = matchProducts(orderWords(event.query).words, event.products)
  return { query: event.query, ...(event.quantity === undefined ? {} : { quantity: event.quantity }), matches }
}

/** The one variant a search settles on: a variant named, or the only variant of the only product found. */
function foundVariant (args: Args): Variant | undefined {
  const { matches } = searchOf(args)
  const [only] = matches
  if (matches.length !== 1 || !only) return undefined
  return only.variant ?? (only.product.variants.length === 1 ? only.product.variants[0] : undefined)
}

/** Stock left of a variant picked or found, against the cart. */
function room (args: Args, variant: Variant): number {
  return Math.max(0, (variant.stock ?? UNTRACKED_MAX) - inCart(args.context.cart, variant.id))
}

/** A quantity said with the words that the found or picked variant can take. */
function wantedFits (args: Args, variant: Variant | undefined, room: number): boolean {
  const wanted = args.event.type === 'CATALOG_LOADED' ? args.event.quantity : args.context.wanted
  return variant !== undefined && wanted !== undefined && wanted >= 1 && wanted <= room
}

/** The variants of the product being chosen from, when there is a choice of them. */
function variantsReply (context: ConversationContext): Reply | undefined {
  const { product } = context
  return product && product.variants.length > 1 ? { id: 'variants', product } : undefined
}

/** What BROWSING_PRODUCTS shows without reading the catalog: variants to choose, or a page with nothing on it. */
function browsingReply (context: ConversationContext): Reply | undefined {
  const empty = context.shown.length === 0
  return variantsReply(context) ?? (empty ? { id: 'products', products: [], offset: context.catalogOffset, count: context.catalogCount } : undefined)
}

/** What a state asks for. Products on show are not kept: BROWSING_PRODUCTS shows them once read again. */
function prompt (state: Exclude<ConversationState, 'BROWSING_PRODUCTS'>, context: ConversationContext): Reply {
  const pending = context.pending
  switch (state) {
    case 'UNLINKED': return { id: 'welcome' }
    case 'AWAITING_LINK_CODE': return { id: 'askCode' }
    case 'AWAITING_TENANT_SELECTION': return clubsReply(context)
    case 'MAIN_MENU':
      return pending?.kind === 'unlink' ? { id: 'confirm', what: 'unlink', clubName: clubName(context) } : menuReply(context)
    case 'AWAITING_QUANTITY': {
      const item = selectedItem(context)
      if (!item) return { id: 'hint' }
      return { id: 'askQuantity', title: item.title, price: item.variant.price, stock: item.variant.stock, max: maxQuantity(context, item.variant.id) }
    }
    case 'VIEWING_CART': {
      if (pending?.kind === 'clearCart') return { id: 'confirm', what: 'clearCart', clubName: clubName(context) }
      const line = pending?.kind === 'editLine' ? context.cart.find((l) => l.variantId === pending.variantId) : undefined
      if (line) return { id: 'askLineQuantity', title: line.title, quantity: line.quantity, max: UNTRACKED_MAX }
      return { id: 'cart', items: context.cart }
    }
    case 'CONFIRMING_ORDER': return { id: 'summary', items: context.cart }
  }
}

/** The I/O actions `transition()` hands the runtime, each with its parameters. */
export type EffectAction = { [K in keyof ConversationEffects]: { type: K, params: ConversationEffects[K] } }[keyof ConversationEffects]

/** An I/O action: performed by the runtime from the actions `transition()` returns, never here. */
const io = <P>(_args: unknown, _params: P): void => {}

/** A named action that works out what to do from the context and event, then asks for effects and assignments. */
const enqueue = <P = undefined>(
  collect: Parameters<typeof enqueueActions<ConversationContext, ConversationEvent, P, ConversationEvent, never, EffectAction, never, never>>[0]
) =>
    enqueueActions<ConversationContext, ConversationEvent, P, ConversationEvent, never, EffectAction, never, never>(collect)

type Enqueue = Parameters<Parameters<typeof enqueue>[0]>[0]['enqueue']

/** Sends a reply; a reply that offers choices also records them, so that a bare number can pick one. */
function sendReply (enqueue: Enqueue, reply: Reply): void {
  const offered = optionsOf(reply)
  if (offered) enqueue.assign({ options: offered.map(choiceId) })
  enqueue({ type: 'reply', params: reply })
}

const saying = <P = undefined>(reply: (args: Args, params: P) => Reply) =>
  enqueue<P>(({ context, event, enqueue }, params) => sendReply(enqueue, reply({ context, event }, params)))

const failureOf = (event: ConversationEvent): CommerceFailure => {
  assertEvent(event, ['ADD_FAILED', 'LINE_FAILED', 'ORDER_FAILED'])
  return event.reason
}

/** What browsing keeps, dropped once it is over (back to the menu, an item added, an order placed). */
const FORGET_BROWSING = { shown: [], catalogOffset: 0, catalogCount: 0, query: undefined, product: undefined, selectedVariantId: undefined, wanted: undefined }
/** A club's state, dropped when the conversation moves to another club or none. */
const FORGET_CLUB = { ...FORGET_BROWSING, cart: [], cartId: undefined }

const effects = setup({
  types: {
    context: {} as ConversationContext,
    events: {} as ConversationEvent,
    input: {} as { phone: string, at: number },
  },
  actions: {
    reply: io<ConversationEffects['reply']>,
    sendLoginForm: io<ConversationEffects['sendLoginForm']>,
    consumeLinkCode: io<ConversationEffects['consumeLinkCode']>,
    fetchProducts: io<ConversationEffects['fetchProducts']>,
    loadProduct: io<ConversationEffects['loadProduct']>,
    reloadShown: io<ConversationEffects['reloadShown']>,
    searchProducts: io<ConversationEffects['searchProducts']>,
    addToCart: io<ConversationEffects['addToCart']>,
    setCartLine: io<ConversationEffects['setCartLine']>,
    repeatLastOrder: io<ConversationEffects['repeatLastOrder']>,
    setLanguage: io<ConversationEffects['setLanguage']>,
    setUpdates: io<ConversationEffects['setUpdates']>,
    placeOrder: io<ConversationEffects['placeOrder']>,
    report: io<ConversationEffects['report']>,
    unlink: io<ConversationEffects['unlink']>,
  },
})

const machineSetup = effects.extend({
  actions: {
    // An answer is due only right after its question: any input drops a pending question.
    touch: effects.assign(({ context, event }) => 'at' in event ? { lastActivity: event.at, accounts: event.accounts, pending: undefined } : context),
    learnAccounts: effects.assign({ accounts: (args) => accountsOf(args) }),
    clearSelection: effects.assign({ product: undefined, selectedVariantId: undefined, wanted: undefined }),
    forgetBrowsing: effects.assign(FORGET_BROWSING),
    clearCart: effects.assign({ cart: [], cartId: undefined }),
    resetLinkFailures: effects.assign({ linkFailures: 0 }),
    countLinkFailure: effects.assign({ linkFailures: ({ context }) => context.linkFailures + 1 }),
    ask: enqueue<Pending>(({ enqueue }, pending) => enqueue.assign({ pending })),
    askLineQuantity: effects.assign(({ context, event }) => {
      const choice = choiceOf(context, event)
      return choice?.kind === 'line' ? { pending: { kind: 'editLine' as const, variantId: choice.variantId } } : {}
    }),
    selectTenant: effects.assign((args) => {
      const tenantId = chosenTenant(args)
      const same = tenantId === args.context.tenantId
      return { tenantId, linkFailures: 0, ...(same ? FORGET_BROWSING : FORGET_CLUB) }
    }),
    /** The unlinked club's state goes; the conversation carries on in another linked club, if any. */
    leaveClub: effects.assign((args) => ({
      ...FORGET_CLUB,
      tenantId: remainingClub(args)?.tenantId,
      accounts: args.context.accounts.filter((a) => a.tenantId !== args.context.tenantId),
    })),
    leaveLastClub: effects.assign({ ...FORGET_CLUB, tenantId: undefined }),
    /** A variant picked: of the product loaded for the pick, or of the one being chosen from. */
    selectPicked: effects.assign((args) => ({
      product: args.event.type === 'PRODUCT_LOADED' ? loadedProduct(args) : args.context.product,
      selectedVariantId: pickedVariant(args)?.id,
    })),
    selectProduct: effects.assign((args) => ({ product: loadedProduct(args), selectedVariantId: undefined })),
    showCatalog: effects.assign(({ event }) => {
      assertEvent(event, 'PRODUCTS_LOADED')
      return { shown: event.products.map((p) => p.id), catalogOffset: event.offset, catalogCount: event.count, query: undefined }
    }),
    /** The matches of a search become the products on show; a single product found is also the one selected. */
    showMatches: effects.assign((args) => {
      const { query, quantity, matches } = searchOf(args)
      const products = matches.slice(0, SEARCH_ROWS).map((m) => m.product)
      return {
        shown: products.map((p) => p.id),
        catalogOffset: 0,
        catalogCount: products.length,
        query,
        wanted: quantity,
        product: matches.length === 1 ? products[0] : undefined,
        selectedVariantId: foundVariant(args)?.id,
      }
    }),
    addLine: effects.assign(({ context, event }) => {
      assertEvent(event, 'ADDED')
      const found = findVariant(context, event.variantId)
      const line = {
        variantId: event.variantId,
        productId: found?.product.id ?? '',
        title: found ? variantTitle(found.product, found.variant) : event.variantId,
        quantity: event.quantity,
        unitPrice: found?.variant.price ?? 0,
      }
      // another cart than the one held: that one became an order (its answer lost), and this one starts afresh
      const kept = context.cartId === undefined || context.cartId === event.cartId ? context.cart : []
      return { ...FORGET_BROWSING, cart: mergeLine(kept, line), cartId: event.cartId }
    }),
    addRepeated: effects.assign(({ context, event }) => {
      assertEvent(event, 'REPEATED')
      return { cart: event.lines.reduce(mergeLine, context.cart), cartId: event.cartId }
    }),
    setLine: effects.assign(({ context, event }) => {
      assertEvent(event, 'LINE_SET')
      return { cart: setLine(context.cart, event.variantId, event.quantity) }
    }),

    // Effects whose parameters come from the context and the event.
    consumeSentCode: enqueue(({ event, enqueue }) => {
      const code = linkCodeOf(event)
      if (code !== undefined) enqueue({ type: 'consumeLinkCode', params: { code } })
    }),
    consumeTypedCode: enqueue(({ event, enqueue }) => {
      const code = typedCodeOf(event)
      if (code !== undefined) enqueue({ type: 'consumeLinkCode', params: { code } })
    }),
    fetchFirstPage: enqueue(({ context, enqueue }) => enqueue({ type: 'fetchProducts', params: { tenantId: clubOf(context), offset: 0 } })),
    loadPicked: enqueue(({ context, event, enqueue }) => {
      const choice = choiceOf(context, event)
      if (choice?.kind === 'product') enqueue({ type: 'loadProduct', params: { tenantId: clubOf(context), productId: choice.productId } })
    }),
    fetchNextPage: enqueue(({ context, enqueue }) =>
      enqueue({ type: 'fetchProducts', params: { tenantId: clubOf(context), offset: nextProductsOffset(context) } })),
    search: enqueue(({ context, event, enqueue }) => {
      const text = textOf(event) ?? ''
      const { quantity } = orderWords(text)
      enqueue({ type: 'searchProducts', params: { tenantId: clubOf(context), query: text, ...(quantity === undefined ? {} : { quantity }) } })
    }),
    /** `quantity` more of the selected variant: the one typed, or the one said with the words that found it. */
    add: enqueue(({ context, event, enqueue }, params: { quantity: 'typed' | 'wanted' }) => {
      const variantId = context.selectedVariantId ?? ''
      const quantity = params.quantity === 'wanted' ? context.wanted ?? 0 : quantityIn(event, maxQuantity(context, variantId)) ?? 0
      enqueue({
        type: 'addToCart',
        params: {
          tenantId: clubOf(context),
          cartId: context.cartId,
          variantId,
          quantity,
          target: inCart(context.cart, variantId) + quantity,
          cart: context.cart.map((l) => ({ variantId: l.variantId, quantity: l.quantity })),
        },
      })
    }),
    // a cart without an id (only a damaged session has one) is refused by the shop like any unknown cart
    setEditedLine: enqueue(({ context, event, enqueue }) => {
      if (context.pending?.kind !== 'editLine') return
      const quantity = quantityIn(event, UNTRACKED_MAX, 0) ?? 0
      enqueue({ type: 'setCartLine', params: { tenantId: clubOf(context), cartId: context.cartId ?? '', variantId: context.pending.variantId, quantity } })
    }),
    repeatLast: enqueue(({ context, enqueue }) => enqueue({
      type: 'repeatLastOrder',
      params: { tenantId: clubOf(context), cartId: context.cartId, cart: context.cart.map((l) => ({ variantId: l.variantId, quantity: l.quantity })) },
    })),
    orderCart: enqueue(({ context, enqueue }) => enqueue({ type: 'placeOrder', params: { tenantId: clubOf(context), cartId: context.cartId ?? '' } })),
    showReport: enqueue(({ context, enqueue }, params: { what: Report }) =>
      enqueue({ type: 'report', params: { tenantId: clubOf(context), what: params.what } })),
    unlinkClub: enqueue(({ context, enqueue }) => enqueue({ type: 'unlink', params: { tenantId: clubOf(context) } })),
    /** The member's language for this club: the one named, or the other one. */
    speak: enqueue(({ context, enqueue }, params: { locale?: Locale }) => {
      const tenantId = clubOf(context)
      const locale = params.locale ?? otherLocale(localeOf(context))
      enqueue({ type: 'setLanguage', params: { tenantId, locale } })
      enqueue.assign({ accounts: context.accounts.map((a) => a.tenantId === tenantId ? { ...a, locale } : a) })
    }),
    turnUpdates: enqueue(({ context, enqueue }, params: { on: boolean }) => {
      const tenantId = clubOf(context)
      enqueue({ type: 'setUpdates', params: { tenantId, on: params.on } })
      enqueue.assign({ accounts: context.accounts.map((a) => a.tenantId === tenantId ? { ...a, updates: params.on } : a) })
    }),

    // Replies.
    say: saying((_, reply: Reply) => reply),
    /** What the state asks for; products on show are read again first (their result says them: `sayShown`). */
    /** An image, a voice note without transcript, ...: an answer for that kind (the words are the runtime's). */
    sayUnsupported: saying(({ event }) => {
      assertEvent(event, 'UNSUPPORTED')
      return { id: 'unsupported', media: event.messageType }
    }),
    sayPrompt: enqueue(({ context, enqueue }, params: { state: ConversationState }) => {
      const { state } = params
      const reply = state === 'BROWSING_PRODUCTS' ? browsingReply(context) : prompt(state, context)
      if (reply) sendReply(enqueue, reply)
      else enqueue({ type: 'reloadShown', params: { tenantId: clubOf(context), productIds: context.shown } })
    }),
    sayPage: saying(({ event }) => {
      assertEvent(event, 'PRODUCTS_LOADED')
      return { id: 'products', products: event.products, offset: event.offset, count: event.count }
    }),
    /** A search's matches on show: the variants of the one product found, or the products found. */
    sayMatches: saying((args) => {
      const { query, matches } = searchOf(args)
      return variantsReply(args.context) ?? { id: 'matches', query, products: matches.slice(0, SEARCH_ROWS).map((m) => m.product), more: 0 }
    }),
    sayShown: saying(({ context, event }) => {
      assertEvent(event, 'SHOWN_LOADED')
      if (context.query !== undefined) return { id: 'matches', query: context.query, products: event.products, more: 0 }
      return { id: 'products', products: event.products, offset: context.catalogOffset, count: context.catalogCount }
    }),
    sayMenu: saying(({ context }) => menuReply(context)),
    sayClubs: saying(({ context }) => clubsReply(context)),
    sayGreeting: saying((args) => ({ id: 'greeting', name: greeted(args) })),
    sayHello: saying((args) => ({ id: 'hello', name: currentAccount(args.context, accountsOf(args), now(args))?.name ?? '' })),
    /** Why a code failed; while waiting for a code, with the attempts left after this one. */
    sayLinkFailed: saying(({ context, event }, params: { attempts: boolean }) => {
      assertEvent(event, 'LINK_FAILED')
      return { id: 'linkFailed', reason: event.reason, ...(params.attempts ? { attemptsLeft: Math.max(0, MAX_LINK_FAILURES - context.linkFailures) } : {}) }
    }),
    sayOutOfStock: saying((args) => ({
      id: 'outOfStock',
      title: (args.event.type === 'CATALOG_LOADED'
        ? foundVariant(args)
        : pickedVariant(args))?.title ?? ''
    })),
    sayNoMatch: saying(({ event }) => {
      assertEvent(event, 'CATALOG_LOADED')
      return { id: 'noMatch', query: event.query }
    }),
    sayAdded: saying(({ context, event }) => {
      assertEvent(event, 'ADDED')
      return { id: 'added', title: selectedItem(context)?.title ?? '', quantity: event.quantity }
    }),
    sayLineSet: saying(({ context, event }) => {
      assertEvent(event, 'LINE_SET')
      return { id: 'lineSet', title: context.cart.find((l) => l.variantId === event.variantId)?.title ?? '', quantity: event.quantity }
    }),
    sayFailed: saying(({ event }, params: { id: 'addFailed' | 'lineFailed' | 'orderFailed' }): Reply => {
      const reason = failureOf(event)
      // an order the club's rules refused is answered with why, and with what is still possible
      if (event.type === 'ORDER_FAILED' && event.refusal) return { id: 'orderFailed', reason, refusal: event.refusal }
      // a quantity over a cap is answered with what is still possible
      if (event.type === 'ADD_FAILED' && event.refusal) {
        return {
          id: 'addFailed', reason, refusal: event.refusal, ...(event.units === undefined ? {} : { units: event.units })
        }
      }
      return { id: params.id, reason }
    }),
    sayRepeated: saying(({ event }) => {
      assertEvent(event, 'REPEATED')
      return { id: 'repeated', missing: event.missing }
    }),
    sayRepeatFailed: saying(({ event }) => {
      assertEvent(event, 'REPEAT_FAILED')
      return { id: 'repeatFailed', reason: event.reason }
    }),
    sayOrderPlaced: saying(({ event }) => {
      assertEvent(event, 'ORDER_PLACED')
      return { id: 'orderPlaced', displayId: event.displayId, total: event.total }
    }),
    sayBadQuantity: saying(({ context }) => ({ id: 'badQuantity', max: maxQuantity(context, context.selectedVariantId) })),
    sayCart: saying(({ context }, params: { id: 'editCart' | 'cartAll' }) => ({ id: params.id, items: context.cart })),
    sayLanguage: saying(({ context }) => ({ id: 'language', locale: localeOf(context) })),
    sayUnlinked: saying(({ context }) => ({ id: 'unlinked', clubName: clubName(context) })),
  },
  guards: {
    chose: (args, choice: Choice) => sameChoice(choiceOf(args.context, args.event), choice),
    offered: (args, params: { item: MenuItem }) =>
      sameChoice(choiceOf(args.context, args.event), { kind: 'menu', item: params.item }) && menuItems(present(args)).includes(params.item),
    said: (args, params: { word: Word }) => wordIn(args.event) === params.word,
    sentLinkCode: (args) => linkCodeOf(args.event) !== undefined,
    typedCode: (args) => looksLikeCode(typedCodeOf(args.event)),
    accountLost: (args) => currentAccount(args.context, accountsOf(args), now(args)) === undefined,
    codeWhileLost: (args) => linkCodeOf(args.event) !== undefined && currentAccount(args.context, accountsOf(args), now(args)) === undefined,
    noClubs: (args) => validAccounts(accountsOf(args), now(args)).length === 0,
    // `menu` and `cancel` leave the club choice only for a club that is still linked
    backToClub: (args) =>
      (wordIn(args.event) === 'menu' || wordIn(args.event) === 'cancel') && currentAccount(args.context, accountsOf(args), now(args)) !== undefined,
    idle: ({ context, event }) => 'at' in event && event.at - context.lastActivity > IDLE_RESET_MS,
    linkedClub: (args) => {
      const tenantId = chosenTenant(args)
      return tenantId !== undefined && validAccounts(accountsOf(args), now(args)).some((a) => a.tenantId === tenantId)
    },
    manyClubs: (args) => validAccounts(accountsOf(args), now(args)).length >= 2,
    lastLinkAttempt: ({ context }) => context.linkFailures + 1 >= MAX_LINK_FAILURES,
    pickedProduct: (args) => choiceOf(args.context, args.event)?.kind === 'product',
    productWithVariants: (args) => (loadedProduct(args)?.variants.length ?? 0) > 1,
    addWanted: (args) => {
      const variant = pickedVariant(args)
      return variant !== undefined && wantedFits(args, variant, room(args, variant))
    },
    available: (args) => {
      const variant = pickedVariant(args)
      return variant !== undefined && room(args, variant) >= 1
    },
    soldOut: (args) => {
      const variant = pickedVariant(args)
      return variant !== undefined && room(args, variant) < 1
    },
    /** Words that are not a choice, a number or a control word ("sí" out of place is not a product): a search. */
    searchable: (args) => {
      const text = textOf(args.event)
      return text !== undefined && wordIn(args.event) === undefined && choiceOf(args.context, args.event) === undefined && orderWords(text).words.length > 0
    },
    noMatch: (args) => searchOf(args).matches.length === 0,
    foundAddable: (args) => {
      const variant = foundVariant(args)
      return variant !== undefined && wantedFits(args, variant, room(args, variant))
    },
    foundAvailable: (args) => {
      const variant = foundVariant(args)
      return variant !== undefined && room(args, variant) >= 1
    },
    foundSoldOut: (args) => foundVariant(args) !== undefined,
    validQuantity: (args) => quantityIn(args.event, maxQuantity(args.context, args.context.selectedVariantId)) !== undefined,
    cartEmptyChoice: (args) => sameChoice(choiceOf(args.context, args.event), { kind: 'menu', item: 'cart' }) && args.context.cart.length === 0,
    cartWord: (args) => wordIn(args.event) === 'cart' && args.context.cart.length > 0,
    addedSelected: ({ context, event }) => {
      assertEvent(event, 'ADDED')
      return event.variantId === context.selectedVariantId
    },
    emptyPage: ({ event }) => {
      assertEvent(event, 'PRODUCTS_LOADED')
      return event.products.length === 0
    },
    confirmed: (args, params: { what: 'clearCart' | 'unlink' }) => args.context.pending?.kind === params.what && answerOf(args.context, args.event) === true,
    declined: (args) => args.context.pending !== undefined && args.context.pending.kind !== 'editLine' && answerOf(args.context, args.event) === false,
    lineChosen: (args) => {
      const choice = choiceOf(args.context, args.event)
      return choice?.kind === 'line' && args.context.cart.some((l) => l.variantId === choice.variantId)
    },
    lineQuantity: (args) => args.context.pending?.kind === 'editLine' &&
      (quantityIn(args.event, UNTRACKED_MAX, 0) !== undefined || choiceOf(args.context, args.event)?.kind === 'removeLine'),
    unlinkLastClub: (args) => args.context.pending?.kind === 'unlink' && answerOf(args.context, args.event) === true && remainingClub(args) === undefined,
    cartEmptied: ({ context, event }) => {
      assertEvent(event, 'LINE_SET')
      return setLine(context.cart, event.variantId, event.quantity).length === 0
    },
    repeatedSome: ({ event }) => {
      assertEvent(event, 'REPEATED')
      return event.lines.length > 0
    },
  },
})

// Small constructors that keep the chart below readable.
const say = (reply: Reply) => ({ type: 'say' as const, params: reply })
const sayPrompt = (state: ConversationState) => ({ type: 'sayPrompt' as const, params: { state } })
const said = (word: Word) => ({ type: 'said' as const, params: { word } })
const chose = (choice: Choice) => ({ type: 'chose' as const, params: choice })
const offered = (item: MenuItem) => ({ type: 'offered' as const, params: { item } })
const confirmed = (what: 'clearCart' | 'unlink') => ({ type: 'confirmed' as const, params: { what } })

// Moves several states share.

/** A link succeeded (code or login form), whatever the state: the club choice when 2 or more clubs, else the menu. */
const afterLink = [
  { guard: 'manyClubs' as const, target: '.AWAITING_TENANT_SELECTION', actions: ['learnAccounts', 'sayGreeting', 'sayClubs'] as const },
  { guard: 'linkedClub' as const, target: '.MAIN_MENU', actions: ['learnAccounts', 'selectTenant', 'sayGreeting', 'sayMenu'] as const },
]
const expired = { target: 'UNLINKED', actions: ['forgetBrowsing', say({ id: 'sessionExpired' })] as const }
/** An image, a voice note without transcript or other media: an answer for its kind, then what the state offers. */
const unsupported = (state: ConversationState) => ({ actions: ['sayUnsupported', sayPrompt(state)] as const })
const linkFailed = (state: ConversationState) => ({ actions: [{ type: 'sayLinkFailed' as const, params: { attempts: false } }, sayPrompt(state)] as const })
const help = (state: ConversationState) => ({ guard: said('help'), actions: ['touch', say({ id: 'help', state }), sayPrompt(state)] as const })
/** Input a state does not expect: a short hint and the same prompt again, nothing lost. */
const unexpected = (state: ConversationState) => ({ actions: ['touch', say({ id: 'hint' }), sayPrompt(state)] as const })
const consumeSent = { guard: 'sentLinkCode' as const, actions: ['touch', 'consumeSentCode'] as const }
const toMenu = ['touch', 'forgetBrowsing', 'sayMenu'] as const

/** Any input of a linked state first checks the link and, away from the menu, the idle reset. */
const linkedReply = (idleReset: boolean) => [
  { guard: 'accountLost' as const, target: 'UNLINKED', actions: ['touch', 'forgetBrowsing', say({ id: 'sessionExpired' })] as const },
  ...(idleReset ? [{ guard: 'idle' as const, target: 'MAIN_MENU', actions: ['touch', 'forgetBrowsing', say({ id: 'timeout' }), 'sayMenu'] as const }] : []),
]
/** Typed text of a linked state: a link code (used from UNLINKED when the link is lost), the checks, the words. */
const linkedText = (state: ConversationState, idleReset = true) => [
  { guard: 'codeWhileLost' as const, target: 'UNLINKED', actions: ['touch', 'forgetBrowsing', 'consumeSentCode'] as const },
  consumeSent,
  ...linkedReply(idleReset),
  { guard: said('menu'), target: 'MAIN_MENU', actions: toMenu },
  { guard: said('cancel'), target: 'MAIN_MENU', actions: toMenu },
  help(state),
]

/** Words typed where products are on offer: a search over the club's whole catalog. */
const searchWords = { guard: 'searchable' as const, actions: ['touch', 'search'] as const }
/** The outcome of a search, in the state it was made from. */
const searchResults = (state: ConversationState) => [
  { guard: 'noMatch' as const, actions: ['sayNoMatch', sayPrompt(state)] as const },
  {
    guard: 'foundAddable' as const,
    target: 'AWAITING_QUANTITY',
    actions: ['showMatches', { type: 'add' as const, params: { quantity: 'wanted' as const } }] as const
  },
  { guard: 'foundAvailable' as const, target: 'AWAITING_QUANTITY', actions: ['showMatches', sayPrompt('AWAITING_QUANTITY')] as const },
  { guard: 'foundSoldOut' as const, actions: ['sayOutOfStock', sayPrompt(state)] as const },
  { target: 'BROWSING_PRODUCTS', actions: ['showMatches', 'sayMatches'] as const },
]

// Each state's own choices, typed as their number or tapped.

const linkChoices = [
  { guard: chose({ kind: 'link', what: 'login' }), actions: ['touch', 'sendLoginForm'] as const },
  { guard: chose({ kind: 'link', what: 'code' }), target: 'AWAITING_LINK_CODE', actions: ['touch', 'resetLinkFailures', say({ id: 'askCode' })] as const },
]
const noClubs = { guard: 'noClubs' as const, target: 'UNLINKED', actions: ['touch', 'forgetBrowsing', say({ id: 'sessionExpired' })] as const }
const clubChosen = { guard: 'linkedClub' as const, target: 'MAIN_MENU', actions: ['touch', 'selectTenant', 'sayMenu'] as const }
// the effect is named before `touch` so that it reads the club being unlinked
const unlinkLast = {
  guard: 'unlinkLastClub' as const, target: 'UNLINKED', actions: ['unlinkClub', 'touch', 'sayUnlinked', 'leaveLastClub', say({ id: 'welcome' })] as const
}
const menuChoices = [
  { guard: confirmed('unlink'), target: 'MAIN_MENU', actions: ['unlinkClub', 'touch', 'sayUnlinked', 'leaveClub', 'sayMenu'] as const },
  { guard: 'declined' as const, actions: ['touch', sayPrompt('MAIN_MENU')] as const },
  { guard: offered('browse'), target: 'BROWSING_PRODUCTS', actions: ['touch', 'clearSelection', 'fetchFirstPage'] as const },
  { guard: 'cartEmptyChoice' as const, actions: ['touch', say({ id: 'cartEmpty' }), 'sayMenu'] as const },
  { guard: offered('cart'), target: 'VIEWING_CART', actions: ['touch', sayPrompt('VIEWING_CART')] as const },
  { guard: offered('repeat'), actions: ['touch', 'repeatLast'] as const },
  { guard: offered('orders'), actions: ['touch', { type: 'showReport' as const, params: { what: 'orders' as const } }, 'sayMenu'] as const },
  { guard: offered('notifications'), actions: ['touch', { type: 'showReport' as const, params: { what: 'notifications' as const } }, 'sayMenu'] as const },
  { guard: offered('crops'), actions: ['touch', { type: 'showReport' as const, params: { what: 'crops' as const } }, 'sayMenu'] as const },
  { guard: offered('switch-club'), target: 'AWAITING_TENANT_SELECTION', actions: ['touch', 'sayClubs'] as const },
  { guard: offered('language'), actions: ['touch', { type: 'speak' as const, params: {} }, 'sayLanguage', 'sayMenu'] as const },
  {
    guard: offered('updates-off'),
    actions: ['touch', { type: 'turnUpdates' as const, params: { on: false } }, say({ id: 'updates', on: false }), 'sayMenu'] as const
  },
  {
    guard: offered('updates-on'),
    actions: ['touch', { type: 'turnUpdates' as const, params: { on: true } }, say({ id: 'updates', on: true }), 'sayMenu'] as const
  },
  { guard: offered('unlink'), actions: ['touch', { type: 'ask' as const, params: { kind: 'unlink' as const } }, sayPrompt('MAIN_MENU')] as const },
]
const productChoices = [
  { guard: chose({ kind: 'products', what: 'more' }), actions: ['touch', 'clearSelection', 'fetchNextPage'] as const },
  { guard: chose({ kind: 'products', what: 'first' }), actions: ['touch', 'clearSelection', 'fetchFirstPage'] as const },
  // a variant of the product on show; a product is read from the catalog first (PRODUCT_LOADED)
  {
    guard: 'addWanted' as const,
    target: 'AWAITING_QUANTITY',
    actions: ['touch', 'selectPicked', { type: 'add' as const, params: { quantity: 'wanted' as const } }] as const
  },
  { guard: 'available' as const, target: 'AWAITING_QUANTITY', actions: ['touch', 'selectPicked', sayPrompt('AWAITING_QUANTITY')] as const },
  { guard: 'soldOut' as const, actions: ['touch', 'sayOutOfStock', sayPrompt('BROWSING_PRODUCTS')] as const },
  { guard: 'pickedProduct' as const, actions: ['touch', 'loadPicked'] as const },
]
// named before `touch`, which drops the pending line
const lineQuantity = { guard: 'lineQuantity' as const, actions: ['setEditedLine', 'touch'] as const }
const cartChoices = [
  { guard: confirmed('clearCart'), target: 'MAIN_MENU', actions: ['touch', 'clearCart', say({ id: 'cartCleared' }), 'sayMenu'] as const },
  { guard: 'declined' as const, actions: ['touch', sayPrompt('VIEWING_CART')] as const },
  { guard: chose({ kind: 'cart', what: 'checkout' }), target: 'CONFIRMING_ORDER', actions: ['touch', sayPrompt('CONFIRMING_ORDER')] as const },
  { guard: chose({ kind: 'cart', what: 'browse' }), target: 'BROWSING_PRODUCTS', actions: ['touch', 'clearSelection', 'fetchFirstPage'] as const },
  { guard: chose({ kind: 'cart', what: 'edit' }), actions: ['touch', { type: 'sayCart' as const, params: { id: 'editCart' as const } }] as const },
  {
    guard: chose({ kind: 'cart', what: 'all' }),
    actions: ['touch', { type: 'sayCart' as const, params: { id: 'cartAll' as const } }, sayPrompt('VIEWING_CART')] as const
  },
  {
    guard: chose({ kind: 'cart', what: 'clear' }),
    actions: ['touch', { type: 'ask' as const, params: { kind: 'clearCart' as const } }, sayPrompt('VIEWING_CART')] as const
  },
  { guard: 'lineChosen' as const, actions: ['touch', 'askLineQuantity', sayPrompt('VIEWING_CART')] as const },
]
const orderChoices = [
  { guard: chose({ kind: 'order', what: 'confirm' }), actions: ['touch', 'orderCart'] as const },
  { guard: chose({ kind: 'order', what: 'cancel' }), target: 'VIEWING_CART', actions: ['touch', sayPrompt('VIEWING_CART')] as const },
  {
    guard: chose({ kind: 'cart', what: 'all' }),
    actions: ['touch', { type: 'sayCart' as const, params: { id: 'cartAll' as const } }, sayPrompt('CONFIRMING_ORDER')] as const
  },
]

export const conversationMachine = machineSetup.createMachine({
  id: 'conversation',
  initial: 'UNLINKED',
  context: ({ input }) => ({
    phone: input.phone,
    cart: [],
    lastActivity: input.at,
    accounts: [],
    linkFailures: 0,
    options: [],
    shown: [],
    catalogOffset: 0,
    catalogCount: 0,
  }),
  on: {
    LINKED: afterLink,
    LINK_OK: afterLink,
  },
  states: {
    UNLINKED: {
      on: {
        UNSUPPORTED: unsupported('UNLINKED'),
        LINK_FAILED: { actions: [{ type: 'sayLinkFailed', params: { attempts: false } }, say({ id: 'welcome' })] },
        TEXT: [consumeSent, ...linkChoices, help('UNLINKED'), { actions: ['touch', say({ id: 'welcome' })] }],
        REPLY: [...linkChoices, { actions: ['touch', say({ id: 'welcome' })] }],
      },
    },
    AWAITING_LINK_CODE: {
      on: {
        UNSUPPORTED: unsupported('AWAITING_LINK_CODE'),
        // the third failure gives up
        LINK_FAILED: [
          {
            guard: 'lastLinkAttempt',
            target: 'UNLINKED',
            actions: ['countLinkFailure', { type: 'sayLinkFailed', params: { attempts: true } }, 'resetLinkFailures', say({ id: 'welcome' })],
          },
          { actions: ['countLinkFailure', { type: 'sayLinkFailed', params: { attempts: true } }] },
        ],
        TEXT: [
          { guard: 'typedCode', actions: ['touch', 'consumeTypedCode'] },
          help('AWAITING_LINK_CODE'),
          { guard: said('cancel'), target: 'UNLINKED', actions: ['touch', say({ id: 'welcome' })] },
          { guard: said('menu'), target: 'UNLINKED', actions: ['touch', say({ id: 'welcome' })] },
          // only what looks like a code is tried (and can fail); anything else is explained, no attempt used
          { actions: ['touch', say({ id: 'linkFailed', reason: 'invalid' }), sayPrompt('AWAITING_LINK_CODE')] },
        ],
        REPLY: [
          { guard: chose({ kind: 'link', what: 'login' }), target: 'UNLINKED', actions: ['touch', 'sendLoginForm'] },
          { guard: chose({ kind: 'link', what: 'code' }), actions: ['touch', say({ id: 'askCode' })] },
          unexpected('AWAITING_LINK_CODE'),
        ],
      },
    },
    AWAITING_TENANT_SELECTION: {
      on: {
        // no club left to offer: the link is gone, whatever was sent
        UNSUPPORTED: [noClubs, unsupported('AWAITING_TENANT_SELECTION')],
        LINK_FAILED: linkFailed('AWAITING_TENANT_SELECTION'),
        AUTH_EXPIRED: expired,
        TEXT: [
          consumeSent,
          noClubs,
          { guard: 'backToClub', target: 'MAIN_MENU', actions: toMenu },
          help('AWAITING_TENANT_SELECTION'),
          clubChosen,
          unexpected('AWAITING_TENANT_SELECTION'),
        ],
        REPLY: [noClubs, clubChosen, unexpected('AWAITING_TENANT_SELECTION')],
      },
    },
    MAIN_MENU: {
      on: {
        UNSUPPORTED: unsupported('MAIN_MENU'),
        LINK_FAILED: linkFailed('MAIN_MENU'),
        AUTH_EXPIRED: expired,
        TEXT: [
          ...linkedText('MAIN_MENU', false),
          { guard: said('greeting'), actions: ['touch', 'sayHello', 'sayMenu'] },
          { guard: said('english'), actions: ['touch', { type: 'speak', params: { locale: 'en' } }, 'sayLanguage', 'sayMenu'] },
          { guard: said('spanish'), actions: ['touch', { type: 'speak', params: { locale: 'es' } }, 'sayLanguage', 'sayMenu'] },
          { guard: said('repeat'), actions: ['touch', 'repeatLast'] },
          { guard: 'cartWord', target: 'VIEWING_CART', actions: ['touch', sayPrompt('VIEWING_CART')] },
          unlinkLast,
          ...menuChoices,
          searchWords,
          unexpected('MAIN_MENU'),
        ],
        REPLY: [...linkedReply(false), unlinkLast, ...menuChoices, unexpected('MAIN_MENU')],
        CATALOG_LOADED: searchResults('MAIN_MENU'),
        PRODUCTS_FAILED: { actions: [say({ id: 'productsFailed' }), 'sayMenu'] },
        REPEATED: [
          { guard: 'repeatedSome', target: 'CONFIRMING_ORDER', actions: ['addRepeated', 'sayRepeated', sayPrompt('CONFIRMING_ORDER')] },
          { actions: [say({ id: 'repeatFailed', reason: 'stock' }), 'sayMenu'] },
        ],
        REPEAT_FAILED: { actions: ['sayRepeatFailed', 'sayMenu'] },
      },
    },
    BROWSING_PRODUCTS: {
      on: {
        UNSUPPORTED: unsupported('BROWSING_PRODUCTS'),
        LINK_FAILED: linkFailed('BROWSING_PRODUCTS'),
        AUTH_EXPIRED: expired,
        TEXT: [...linkedText('BROWSING_PRODUCTS'), ...productChoices, searchWords, unexpected('BROWSING_PRODUCTS')],
        REPLY: [...linkedReply(true), ...productChoices, unexpected('BROWSING_PRODUCTS')],
        PRODUCTS_LOADED: [
          { guard: 'emptyPage', target: 'MAIN_MENU', actions: ['forgetBrowsing', say({ id: 'noProducts' }), 'sayMenu'] },
          { actions: ['showCatalog', 'sayPage'] },
        ],
        PRODUCT_LOADED: [
          { guard: 'addWanted', target: 'AWAITING_QUANTITY', actions: ['selectPicked', { type: 'add', params: { quantity: 'wanted' } }] },
          { guard: 'available', target: 'AWAITING_QUANTITY', actions: ['selectPicked', sayPrompt('AWAITING_QUANTITY')] },
          { guard: 'soldOut', actions: ['sayOutOfStock', sayPrompt('BROWSING_PRODUCTS')] },
          { guard: 'productWithVariants', actions: ['selectProduct', sayPrompt('BROWSING_PRODUCTS')] },
          // no longer sold, or nothing to order in it
          { actions: [say({ id: 'hint' }), sayPrompt('BROWSING_PRODUCTS')] },
        ],
        SHOWN_LOADED: { actions: 'sayShown' },
        PRODUCTS_FAILED: { target: 'MAIN_MENU', actions: ['forgetBrowsing', say({ id: 'productsFailed' }), 'sayMenu'] },
        CATALOG_LOADED: searchResults('BROWSING_PRODUCTS'),
      },
    },
    AWAITING_QUANTITY: {
      on: {
        UNSUPPORTED: unsupported('AWAITING_QUANTITY'),
        LINK_FAILED: linkFailed('AWAITING_QUANTITY'),
        AUTH_EXPIRED: expired,
        TEXT: [
          ...linkedText('AWAITING_QUANTITY'),
          { guard: 'validQuantity', actions: ['touch', { type: 'add', params: { quantity: 'typed' } }] },
          { actions: ['touch', 'sayBadQuantity'] },
        ],
        REPLY: [...linkedReply(true), unexpected('AWAITING_QUANTITY')],
        ADDED: { guard: 'addedSelected', target: 'VIEWING_CART', actions: ['sayAdded', 'addLine', sayPrompt('VIEWING_CART')] },
        ADD_FAILED: { actions: [{ type: 'sayFailed', params: { id: 'addFailed' } }, sayPrompt('AWAITING_QUANTITY')] },
      },
    },
    VIEWING_CART: {
      on: {
        UNSUPPORTED: unsupported('VIEWING_CART'),
        LINK_FAILED: linkFailed('VIEWING_CART'),
        AUTH_EXPIRED: expired,
        TEXT: [lineQuantity, ...linkedText('VIEWING_CART'), ...cartChoices, searchWords, unexpected('VIEWING_CART')],
        REPLY: [...linkedReply(true), lineQuantity, ...cartChoices, unexpected('VIEWING_CART')],
        LINE_SET: [
          { guard: 'cartEmptied', target: 'MAIN_MENU', actions: ['clearCart', say({ id: 'cartEmpty' }), 'sayMenu'] },
          { actions: ['sayLineSet', 'setLine', sayPrompt('VIEWING_CART')] },
        ],
        LINE_FAILED: { actions: [{ type: 'sayFailed', params: { id: 'lineFailed' } }, sayPrompt('VIEWING_CART')] },
        CATALOG_LOADED: searchResults('VIEWING_CART'),
        PRODUCTS_FAILED: { actions: [say({ id: 'productsFailed' }), sayPrompt('VIEWING_CART')] },
      },
    },
    CONFIRMING_ORDER: {
      on: {
        UNSUPPORTED: unsupported('CONFIRMING_ORDER'),
        LINK_FAILED: linkFailed('CONFIRMING_ORDER'),
        AUTH_EXPIRED: expired,
        TEXT: [
          ...linkedText('CONFIRMING_ORDER'),
          ...orderChoices,
          { guard: said('yes'), actions: ['touch', 'orderCart'] },
          { guard: said('no'), target: 'VIEWING_CART', actions: ['touch', sayPrompt('VIEWING_CART')] },
          unexpected('CONFIRMING_ORDER'),
        ],
        REPLY: [...linkedReply(true), ...orderChoices, unexpected('CONFIRMING_ORDER')],
        ORDER_PLACED: { target: 'MAIN_MENU', actions: ['sayOrderPlaced', 'clearCart', 'sayMenu'] },
        // the cart may be an order now: never used again (the service reads the outcome back and tells staff)
        ORDER_UNKNOWN: { target: 'MAIN_MENU', actions: [say({ id: 'orderUnknown' }), 'clearCart', 'sayMenu'] },
        ORDER_FAILED: { target: 'VIEWING_CART', actions: [{ type: 'sayFailed', params: { id: 'orderFailed' } }, sayPrompt('VIEWING_CART')] },
      },
    },
  },
})
