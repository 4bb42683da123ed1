import { assertEvent, setup, type ActionFunction } from 'xstate'
import { CHOICE } from './conversation.choices.ts'
import {
  answerOf,
  choiceIdOf,
  choiceOf,
  clubName,
  clubNamed,
  clubsReply,
  currentAccount,
  findProduct,
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
  type ConversationContext,
  type ConversationEffects,
  type ConversationEvent,
  type ConversationState,
  type Locale,
  type MenuItem,
  type Reply,
  type Variant,
} from './conversation.types.ts'

// One conversation per phone (design/conversation.md). Pure: every effect on the world is a named action
// returned by XState's `transition()`; the runtime performs it and feeds the result back as an event.

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

/** Every effect names the conversation's club; guards make sure there is one before an effect is asked for. */
const tenantOf = (context: ConversationContext): string => context.tenantId ?? ''

/** The item a product or variant choice points at: a product with one variant, or a variant. */
function pickedVariant (args: Args): Variant | undefined {
  const choice = choiceOf(args.context, args.event)
  if (choice?.kind === 'variant') return findVariant(args.context, choice.variantId)?.variant
  if (choice?.kind === 'product') {
    const product = findProduct(args.context, choice.productId)
    return product?.variants.length === 1 ? product.variants[0] : undefined
  }
  return undefined
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
  if (event.type !== 'CATALOG_LOADED') return { query: '', matches: [] }
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

/** Stock left of a variant found by a search, against the cart. */
function foundRoom (args: Args, variant: Variant): number {
  return Math.max(0, (variant.stock ?? UNTRACKED_MAX) - inCart(args.context.cart, variant.id))
}

/** A quantity said with the words that the found or picked variant can take. */
function wantedFits (args: Args, variant: Variant | undefined, room: number): boolean {
  const wanted = args.event.type === 'CATALOG_LOADED' ? args.event.quantity : args.context.wanted
  return variant !== undefined && wanted !== undefined && wanted >= 1 && wanted <= room
}

function prompt (state: ConversationState, context: ConversationContext): Reply {
  const pending = context.pending
  switch (state) {
    case 'UNLINKED': return { id: 'welcome' }
    case 'AWAITING_LINK_CODE': return { id: 'askCode' }
    case 'AWAITING_TENANT_SELECTION': return clubsReply(context)
    case 'MAIN_MENU':
      return pending?.kind === 'unlink' ? { id: 'confirm', what: 'unlink', clubName: clubName(context) } : menuReply(context)
    case 'BROWSING_PRODUCTS': {
      const product = findProduct(context, context.selectedProductId)
      if (product && product.variants.length > 1) return { id: 'variants', product }
      if (context.query !== undefined) return { id: 'matches', query: context.query, products: context.catalog, more: 0 }
      return { id: 'products', products: context.catalog, offset: context.catalogOffset, count: context.catalogCount }
    }
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

const noop = () => {}
const effect = <K extends keyof ConversationEffects>() => noop as ActionFunction<ConversationContext, ConversationEvent, ConversationEvent, ConversationEffects[K], never, never, never, never, never>

const machineSetup = setup({
  types: {
    context: {} as ConversationContext,
    events: {} as ConversationEvent,
    input: {} as { phone: string, at: number },
  },
  // I/O: performed by the runtime from the actions `transition()` returns, never here.
  actions: {
    reply: effect<'reply'>(),
    sendLoginForm: effect<'sendLoginForm'>(),
    consumeLinkCode: effect<'consumeLinkCode'>(),
    fetchProducts: effect<'fetchProducts'>(),
    searchProducts: effect<'searchProducts'>(),
    addToCart: effect<'addToCart'>(),
    setCartLine: effect<'setCartLine'>(),
    repeatLastOrder: effect<'repeatLastOrder'>(),
    setLanguage: effect<'setLanguage'>(),
    setUpdates: effect<'setUpdates'>(),
    placeOrder: effect<'placeOrder'>(),
    report: effect<'report'>(),
    unlink: effect<'unlink'>(),
  },
  guards: {
    chose: (args, params: { id: string }) => choiceIdOf(args.context, args.event) === params.id,
    offered: (args, params: { item: MenuItem }) =>
      choiceIdOf(args.context, args.event) === CHOICE.menu(params.item) && menuItems(present(args)).includes(params.item),
    said: (args, params: { word: Word }) => wordIn(args.event) === params.word,
    sentLinkCode: (args) => linkCodeOf(args.event) !== undefined,
    typedCode: (args) => looksLikeCode(typedCodeOf(args.event)),
    accountLost: (args) => currentAccount(args.context, accountsOf(args), now(args)) === undefined,
    codeWhileLost: (args) => linkCodeOf(args.event) !== undefined && currentAccount(args.context, accountsOf(args), now(args)) === undefined,
    noClubs: (args) => validAccounts(accountsOf(args), now(args)).length === 0,
    // `menu` and `cancel` leave the club choice only for a club that is still linked
    backToClub: (args) => (wordIn(args.event) === 'menu' || wordIn(args.event) === 'cancel') && currentAccount(args.context, accountsOf(args), now(args)) !== undefined,
    idle: ({ context, event }) => 'at' in event && event.at - context.lastActivity > IDLE_RESET_MS,
    linkedClub: (args) => {
      const tenantId = chosenTenant(args)
      return tenantId !== undefined && validAccounts(accountsOf(args), now(args)).some((a) => a.tenantId === tenantId)
    },
    manyClubs: (args) => validAccounts(accountsOf(args), now(args)).length >= 2,
    lastLinkAttempt: ({ context }) => context.linkFailures + 1 >= MAX_LINK_FAILURES,
    productWithVariants: (args) => {
      const choice = choiceOf(args.context, args.event)
      return choice?.kind === 'product' && (findProduct(args.context, choice.productId)?.variants.length ?? 0) > 1
    },
    addWanted: (args) => {
      const variant = pickedVariant(args)
      return wantedFits(args, variant, maxQuantity(args.context, variant?.id))
    },
    available: (args) => {
      const variant = pickedVariant(args)
      return variant !== undefined && maxQuantity(args.context, variant.id) >= 1
    },
    soldOut: (args) => {
      const variant = pickedVariant(args)
      return variant !== undefined && maxQuantity(args.context, variant.id) < 1
    },
    /** Words that are not a choice, a number or a control word ("sí" out of place is not a product): a search. */
    searchable: (args) => {
      const text = textOf(args.event)
      return text !== undefined && wordIn(args.event) === undefined && choiceIdOf(args.context, args.event) === undefined && orderWords(text).words.length > 0
    },
    noMatch: (args) => searchOf(args).matches.length === 0,
    foundAddable: (args) => {
      const variant = foundVariant(args)
      return variant !== undefined && wantedFits(args, variant, foundRoom(args, variant))
    },
    foundAvailable: (args) => {
      const variant = foundVariant(args)
      return variant !== undefined && foundRoom(args, variant) >= 1
    },
    foundSoldOut: (args) => foundVariant(args) !== undefined,
    foundOneProduct: (args) => searchOf(args).matches.length === 1,
    validQuantity: (args) => quantityIn(args.event, maxQuantity(args.context, args.context.selectedVariantId)) !== undefined,
    cartEmptyChoice: (args) => choiceIdOf(args.context, args.event) === CHOICE.menu('cart') && args.context.cart.length === 0,
    cartWord: (args) => wordIn(args.event) === 'cart' && args.context.cart.length > 0,
    addedSelected: ({ context, event }) => event.type === 'ADDED' && event.variantId === context.selectedVariantId,
    emptyPage: ({ event }) => event.type === 'PRODUCTS_LOADED' && event.products.length === 0,
    confirmed: (args, params: { what: 'clearCart' | 'unlink' }) => args.context.pending?.kind === params.what && answerOf(args.context, args.event) === true,
    declined: (args) => args.context.pending !== undefined && args.context.pending.kind !== 'editLine' && answerOf(args.context, args.event) === false,
    lineChosen: (args) => {
      const choice = choiceOf(args.context, args.event)
      return choice?.kind === 'line' && 'variantId' in choice && args.context.cart.some((l) => l.variantId === choice.variantId)
    },
    lineQuantity: (args) => args.context.pending?.kind === 'editLine' &&
      (quantityIn(args.event, UNTRACKED_MAX, 0) !== undefined || choiceIdOf(args.context, args.event) === CHOICE.removeLine),
    unlinkLastClub: (args) => args.context.pending?.kind === 'unlink' && answerOf(args.context, args.event) === true && remainingClub(args) === undefined,
    cartEmptied: ({ context, event }) => event.type === 'LINE_SET' && setLine(context.cart, event.variantId, event.quantity).length === 0,
    repeatedSome: ({ event }) => event.type === 'REPEATED' && event.lines.length > 0,
  },
})

const { assign } = machineSetup

// An answer is due only right after its question: any input drops a pending question.
const touch = assign(({ context, event }) => 'at' in event ? { lastActivity: event.at, accounts: event.accounts, pending: undefined } : context)
const learnAccounts = assign({ accounts: (args) => accountsOf(args) })
const clearSelection = assign({ selectedProductId: undefined, selectedVariantId: undefined, wanted: undefined })
const clearCart = assign({ cart: [], cartId: undefined })
const forgetClub = { cart: [], cartId: undefined, catalog: [], catalogOffset: 0, catalogCount: 0, query: undefined, wanted: undefined }
const selectTenant = assign((args) => {
  const tenantId = chosenTenant(args)
  const same = tenantId === args.context.tenantId
  return { tenantId, linkFailures: 0, selectedProductId: undefined, selectedVariantId: undefined, ...(same ? {} : forgetClub) }
})
const selectPicked = assign((args) => {
  const variant = pickedVariant(args)
  return { selectedVariantId: variant?.id, selectedProductId: findVariant(args.context, variant?.id)?.product.id }
})
const selectProduct = assign({
  selectedProductId: (args) => {
    const choice = choiceOf(args.context, args.event)
    return choice?.kind === 'product' ? choice.productId : undefined
  },
  selectedVariantId: undefined,
})
const addLine = assign(({ context, event }) => {
  assertEvent(event, 'ADDED')
  const found = findVariant(context, event.variantId)
  const line = {
    variantId: event.variantId,
    productId: found?.product.id ?? '',
    title: found ? variantTitle(found.product, found.variant) : event.variantId,
    quantity: event.quantity,
    unitPrice: found?.variant.price ?? 0,
  }
  return { cart: mergeLine(context.cart, line), cartId: event.cartId, selectedProductId: undefined, selectedVariantId: undefined, wanted: undefined }
})
const showCatalog = assign(({ event }) => {
  assertEvent(event, 'PRODUCTS_LOADED')
  return { catalog: event.products, catalogOffset: event.offset, catalogCount: event.count, query: undefined }
})
/** The matches of a search become the products on show; a single product found is also the one selected. */
const showMatches = assign((args) => {
  const { query, quantity, matches } = searchOf(args)
  const products = matches.slice(0, SEARCH_ROWS).map((m) => m.product)
  const variant = foundVariant(args)
  return {
    catalog: products,
    catalogOffset: 0,
    catalogCount: products.length,
    query,
    wanted: quantity,
    selectedProductId: matches.length === 1 ? products[0]?.id : undefined,
    selectedVariantId: variant?.id,
  }
})

/** Sends a reply; a reply that offers choices also records them, so that a bare number can pick one. */
function say (reply: (args: Args) => Reply) {
  return [
    assign({ options: (args) => optionsOf(reply(args)) ?? args.context.options }),
    { type: 'reply' as const, params: reply },
  ]
}
const sayPrompt = (state: ConversationState) => say(({ context }) => prompt(state, context))
const sayMenu = say(({ context }) => menuReply(context))
const fetchPage = (offset: (context: ConversationContext) => number) =>
  ({ type: 'fetchProducts' as const, params: ({ context }: Args) => ({ tenantId: tenantOf(context), offset: offset(context) }) })
const fetchFirstPage = fetchPage(() => 0)
const addToCart = (quantity: (args: Args) => number) => ({
  type: 'addToCart' as const,
  params: (args: Args) => {
    const { context } = args
    const variantId = context.selectedVariantId ?? ''
    const n = quantity(args)
    return { tenantId: tenantOf(context), cartId: context.cartId, variantId, quantity: n, target: inCart(context.cart, variantId) + n }
  },
})
const addWanted = addToCart(({ context }) => context.wanted ?? 0)
const search = {
  type: 'searchProducts' as const,
  params: ({ context, event }: Args) => {
    const text = textOf(event) ?? ''
    const { quantity } = orderWords(text)
    return { tenantId: tenantOf(context), query: text, ...(quantity === undefined ? {} : { quantity }) }
  },
}

function consume (code: (event: ConversationEvent) => string | undefined) {
  return { type: 'consumeLinkCode' as const, params: ({ event }: Args) => ({ code: code(event) ?? '' }) }
}

/** A link succeeded (code or login form): the club choice when the phone now has 2 or more clubs, else the menu. */
const afterLink = [
  { guard: 'manyClubs' as const, target: '#conversation.AWAITING_TENANT_SELECTION', actions: [learnAccounts, ...say((a) => ({ id: 'greeting', name: greeted(a) })), ...say(({ context }) => clubsReply(context))] },
  { guard: 'linkedClub' as const, target: '#conversation.MAIN_MENU', actions: [learnAccounts, selectTenant, ...say((a) => ({ id: 'greeting', name: greeted(a) })), ...sayMenu] },
]

const linkFailed = ({ event }: Args): Reply => ({ id: 'linkFailed', reason: event.type === 'LINK_FAILED' ? event.reason : 'invalid' })
const failureOf = ({ event }: Args) => 'reason' in event && event.reason !== 'none' && event.reason !== 'invalid' && event.reason !== 'not_found' ? event.reason : 'unavailable'

/** While the bot waits for a code: say why it failed; the third failure gives up. */
const codeRefused = [
  {
    guard: 'lastLinkAttempt' as const,
    target: '#conversation.UNLINKED',
    actions: [assign({ linkFailures: 0 }), ...say((a) => ({ ...linkFailed(a), attemptsLeft: 0 })), ...say(() => ({ id: 'welcome' }))],
  },
  {
    actions: [
      assign({ linkFailures: ({ context }) => context.linkFailures + 1 }),
      ...say((a) => ({ ...linkFailed(a), attemptsLeft: MAX_LINK_FAILURES - a.context.linkFailures })),
    ],
  },
]

const expired = { target: '#conversation.UNLINKED', actions: [...say(() => ({ id: 'sessionExpired' }))] }

/** Handled the same way in every state; an image or other unsupported message re-shows what the state offers. */
const everywhere = (state: ConversationState) => ({
  UNSUPPORTED: { actions: [...say(() => ({ id: 'unsupported' })), ...sayPrompt(state)] },
  LINKED: [...afterLink],
  LINK_OK: [...afterLink],
  LINK_FAILED: { actions: [...say(linkFailed), ...sayPrompt(state)] },
})

const said = (word: Word) => ({ type: 'said' as const, params: { word } })
const chose = (id: string) => ({ type: 'chose' as const, params: { id } })
const offered = (item: MenuItem) => ({ type: 'offered' as const, params: { item } })
const confirmed = (what: 'clearCart' | 'unlink') => ({ type: 'confirmed' as const, params: { what } })
const consumeTyped = { guard: 'sentLinkCode' as const, actions: [touch, consume(linkCodeOf)] }
// a code sent after the link was lost is still used, from UNLINKED, where its result lands
const relinkWhileLost = { guard: 'codeWhileLost' as const, target: '#conversation.UNLINKED', actions: [touch, consume(linkCodeOf)] }
const help = (state: ConversationState) => ({ guard: said('help'), actions: [touch, ...say(() => ({ id: 'help', state })), ...sayPrompt(state)] })

/** Input a state does not expect: a short hint and the same prompt again, nothing lost. */
const unexpected = (state: ConversationState) => ({ actions: [touch, ...say(() => ({ id: 'hint' })), ...sayPrompt(state)] })

/**
 * The input of a linked state: both kinds first check the link and the idle reset; typed text then understands
 * a link code and the words; then come the state's own moves (a reply, or its position number), else a hint.
 */
function linkedChecks (state: ConversationState, resetsWhenIdle: boolean) {
  const checks = [
    { guard: 'accountLost' as const, ...expired, actions: [touch, ...expired.actions] },
    ...(resetsWhenIdle
      ? [{ guard: 'idle' as const, target: '#conversation.MAIN_MENU', actions: [touch, clearSelection, ...say(() => ({ id: 'timeout' })), ...sayMenu] }]
      : []),
  ]
  const words = [
    { guard: said('menu'), target: '#conversation.MAIN_MENU', actions: [touch, clearSelection, ...sayMenu] },
    { guard: said('cancel'), target: '#conversation.MAIN_MENU', actions: [touch, clearSelection, ...sayMenu] },
    help(state),
  ]
  return { text: [relinkWhileLost, consumeTyped, ...checks, ...words], reply: checks, fallback: unexpected(state) }
}

/** Words typed where products are on offer: a search over the club's whole catalog. */
const searchWords = { guard: 'searchable' as const, actions: [touch, search] }

/** The outcome of a search, in the state it was made from. */
function searchResults (state: ConversationState) {
  return [
    { guard: 'noMatch' as const, actions: [...say((a) => ({ id: 'noMatch', query: a.event.type === 'CATALOG_LOADED' ? a.event.query : '' })), ...sayPrompt(state)] },
    { guard: 'foundAddable' as const, target: '#conversation.AWAITING_QUANTITY', actions: [showMatches, addWanted] },
    { guard: 'foundAvailable' as const, target: '#conversation.AWAITING_QUANTITY', actions: [showMatches, ...sayPrompt('AWAITING_QUANTITY')] },
    { guard: 'foundSoldOut' as const, actions: [...say((a) => ({ id: 'outOfStock', title: foundVariant(a)?.title ?? '' })), ...sayPrompt(state)] },
    { target: '#conversation.BROWSING_PRODUCTS', actions: [showMatches, ...sayPrompt('BROWSING_PRODUCTS')] },
  ]
}

const unlinkedChoices = [
  { guard: chose(CHOICE.login), actions: [touch, { type: 'sendLoginForm' as const }] },
  { guard: chose(CHOICE.code), target: 'AWAITING_LINK_CODE', actions: [touch, assign({ linkFailures: 0 }), ...say(() => ({ id: 'askCode' }))] },
]
const welcomeAgain = { actions: [touch, ...say(() => ({ id: 'welcome' }))] }

const noClubs = { guard: 'noClubs' as const, ...expired, actions: [touch, ...expired.actions] }
const clubChosen = { guard: 'linkedClub' as const, target: 'MAIN_MENU', actions: [touch, selectTenant, ...sayMenu] }

const menuChecks = linkedChecks('MAIN_MENU', false)
const setLanguage = (locale: (context: ConversationContext) => Locale) => [
  touch,
  { type: 'setLanguage' as const, params: ({ context }: Args) => ({ tenantId: tenantOf(context), locale: locale(context) }) },
  assign({ accounts: ({ context }) => context.accounts.map((a) => a.tenantId === context.tenantId ? { ...a, locale: locale(context) } : a) }),
  ...say(({ context }) => ({ id: 'language', locale: localeOf(context) })),
  ...sayMenu,
]
const setUpdates = (on: boolean) => [
  touch,
  { type: 'setUpdates' as const, params: ({ context }: Args) => ({ tenantId: tenantOf(context), on }) },
  assign({ accounts: ({ context }) => context.accounts.map((a) => a.tenantId === context.tenantId ? { ...a, updates: on } : a) }),
  ...say(() => ({ id: 'updates', on })),
  ...sayMenu,
]
const repeatLast = [touch, {
  type: 'repeatLastOrder' as const,
  params: ({ context }: Args) => ({ tenantId: tenantOf(context), cartId: context.cartId, cart: context.cart.map((l) => ({ variantId: l.variantId, quantity: l.quantity })) }),
}]
// the effect is named before `touch` so that it reads the club being unlinked
const unlinkNow = [{ type: 'unlink' as const, params: ({ context }: Args) => ({ tenantId: tenantOf(context) }) }, touch, ...say(({ context }) => ({ id: 'unlinked', clubName: clubName(context) }))]
const declined = (state: ConversationState) => ({ guard: 'declined' as const, actions: [touch, ...sayPrompt(state)] })
/** Choices and answers of the menu, typed or tapped. */
const menuMoves = [
  {
    guard: confirmed('unlink'),
    target: 'MAIN_MENU',
    actions: [
      ...unlinkNow,
      assign((args) => ({
        ...forgetClub,
        tenantId: remainingClub(args)?.tenantId,
        accounts: args.context.accounts.filter((a) => a.tenantId !== args.context.tenantId),
      })),
      ...sayMenu,
    ],
  },
  declined('MAIN_MENU'),
  { guard: offered('browse'), target: 'BROWSING_PRODUCTS', actions: [touch, clearSelection, fetchFirstPage] },
  { guard: 'cartEmptyChoice' as const, actions: [touch, ...say(() => ({ id: 'cartEmpty' })), ...sayMenu] },
  { guard: offered('cart'), target: 'VIEWING_CART', actions: [touch, ...sayPrompt('VIEWING_CART')] },
  { guard: offered('repeat'), actions: repeatLast },
  ...(['orders', 'notifications', 'crops'] as const).map((what) => ({
    guard: offered(what),
    actions: [touch, { type: 'report' as const, params: ({ context }: Args) => ({ tenantId: tenantOf(context), what }) }, ...sayMenu],
  })),
  { guard: offered('switch-club'), target: 'AWAITING_TENANT_SELECTION', actions: [touch, ...say(({ context }) => clubsReply(context))] },
  { guard: offered('language'), actions: setLanguage((context) => otherLocale(localeOf(context))) },
  { guard: offered('updates-off'), actions: setUpdates(false) },
  { guard: offered('updates-on'), actions: setUpdates(true) },
  { guard: offered('unlink'), actions: [touch, assign({ pending: { kind: 'unlink' as const } }), ...sayPrompt('MAIN_MENU')] },
]
// unlinking the only club linked; with another club left, `menuMoves` go on to that club's menu
const unlinkLast = {
  guard: 'unlinkLastClub' as const,
  target: 'UNLINKED',
  actions: [...unlinkNow, assign({ ...forgetClub, tenantId: undefined }), ...say(() => ({ id: 'welcome' }))],
}

const browsingChecks = linkedChecks('BROWSING_PRODUCTS', true)
const browsingMoves = [
  { guard: chose(CHOICE.more), actions: [touch, clearSelection, fetchPage(nextProductsOffset)] },
  { guard: chose(CHOICE.first), actions: [touch, clearSelection, fetchFirstPage] },
  { guard: 'addWanted' as const, target: 'AWAITING_QUANTITY', actions: [touch, selectPicked, addWanted] },
  { guard: 'available' as const, target: 'AWAITING_QUANTITY', actions: [touch, selectPicked, ...sayPrompt('AWAITING_QUANTITY')] },
  { guard: 'soldOut' as const, actions: [touch, ...say((a) => ({ id: 'outOfStock', title: pickedVariant(a)?.title ?? '' })), ...sayPrompt('BROWSING_PRODUCTS')] },
  { guard: 'productWithVariants' as const, actions: [touch, selectProduct, ...sayPrompt('BROWSING_PRODUCTS')] },
]

const quantityChecks = linkedChecks('AWAITING_QUANTITY', true)

const cartChecks = linkedChecks('VIEWING_CART', true)
const lineQuantity = {
  guard: 'lineQuantity' as const,
  // named before `touch`, which drops the pending line
  actions: [{
    type: 'setCartLine' as const,
    params: ({ context, event }: Args) => ({
      tenantId: tenantOf(context),
      cartId: context.cartId ?? '',
      variantId: context.pending?.kind === 'editLine' ? context.pending.variantId : '',
      quantity: quantityIn(event, UNTRACKED_MAX, 0) ?? 0,
    }),
  }, touch],
}
const cartMoves = [
  {
    guard: confirmed('clearCart'),
    target: 'MAIN_MENU',
    actions: [touch, clearCart, ...say(() => ({ id: 'cartCleared' })), ...sayMenu],
  },
  declined('VIEWING_CART'),
  { guard: chose(CHOICE.checkout), target: 'CONFIRMING_ORDER', actions: [touch, ...sayPrompt('CONFIRMING_ORDER')] },
  { guard: chose(CHOICE.browse), target: 'BROWSING_PRODUCTS', actions: [touch, clearSelection, fetchFirstPage] },
  { guard: chose(CHOICE.edit), actions: [touch, ...say(({ context }) => ({ id: 'editCart', items: context.cart }))] },
  { guard: chose(CHOICE.all), actions: [touch, ...say(({ context }) => ({ id: 'cartAll', items: context.cart })), ...sayPrompt('VIEWING_CART')] },
  { guard: chose(CHOICE.clear), actions: [touch, assign({ pending: { kind: 'clearCart' as const } }), ...sayPrompt('VIEWING_CART')] },
  {
    guard: 'lineChosen' as const,
    actions: [
      touch,
      assign(({ context, event }) => {
        const choice = choiceOf(context, event)
        return choice?.kind === 'line' && 'variantId' in choice ? { pending: { kind: 'editLine' as const, variantId: choice.variantId } } : {}
      }),
      ...sayPrompt('VIEWING_CART'),
    ],
  },
]

const confirmChecks = linkedChecks('CONFIRMING_ORDER', true)
const placeOrder = { type: 'placeOrder' as const, params: ({ context }: Args) => ({ tenantId: tenantOf(context), cartId: context.cartId ?? '' }) }
const confirmMoves = [
  { guard: chose(CHOICE.confirmOrder), actions: [touch, placeOrder] },
  { guard: chose(CHOICE.cancelOrder), target: 'VIEWING_CART', actions: [touch, ...sayPrompt('VIEWING_CART')] },
  { guard: chose(CHOICE.all), actions: [touch, ...say(({ context }) => ({ id: 'cartAll', items: context.cart })), ...sayPrompt('CONFIRMING_ORDER')] },
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
    catalog: [],
    catalogOffset: 0,
    catalogCount: 0,
  }),
  states: {
    UNLINKED: {
      on: {
        ...everywhere('UNLINKED'),
        LINK_FAILED: { actions: [...say(linkFailed), ...say(() => ({ id: 'welcome' }))] },
        TEXT: [consumeTyped, ...unlinkedChoices, help('UNLINKED'), welcomeAgain],
        REPLY: [...unlinkedChoices, welcomeAgain],
      },
    },
    AWAITING_LINK_CODE: {
      on: {
        ...everywhere('AWAITING_LINK_CODE'),
        LINK_FAILED: codeRefused,
        TEXT: [
          { guard: 'typedCode', actions: [touch, consume(typedCodeOf)] },
          help('AWAITING_LINK_CODE'),
          { guard: said('cancel'), target: 'UNLINKED', actions: [touch, ...say(() => ({ id: 'welcome' }))] },
          { guard: said('menu'), target: 'UNLINKED', actions: [touch, ...say(() => ({ id: 'welcome' }))] },
          // only what looks like a code is tried (and can fail); anything else is explained, no attempt used
          { actions: [touch, ...say(() => ({ id: 'linkFailed', reason: 'invalid' })), ...sayPrompt('AWAITING_LINK_CODE')] },
        ],
        REPLY: [
          { guard: chose(CHOICE.login), target: 'UNLINKED', actions: [touch, { type: 'sendLoginForm' }] },
          { guard: chose(CHOICE.code), actions: [touch, ...say(() => ({ id: 'askCode' }))] },
          unexpected('AWAITING_LINK_CODE'),
        ],
      },
    },
    AWAITING_TENANT_SELECTION: {
      on: {
        ...everywhere('AWAITING_TENANT_SELECTION'),
        // no club left to offer: the link is gone, whatever was sent
        UNSUPPORTED: [noClubs, everywhere('AWAITING_TENANT_SELECTION').UNSUPPORTED],
        AUTH_EXPIRED: expired,
        TEXT: [
          consumeTyped,
          noClubs,
          { guard: 'backToClub', target: 'MAIN_MENU', actions: [touch, ...sayMenu] },
          help('AWAITING_TENANT_SELECTION'),
          clubChosen,
          unexpected('AWAITING_TENANT_SELECTION'),
        ],
        REPLY: [noClubs, clubChosen, unexpected('AWAITING_TENANT_SELECTION')],
      },
    },
    MAIN_MENU: {
      on: {
        ...everywhere('MAIN_MENU'),
        AUTH_EXPIRED: expired,
        TEXT: [
          ...menuChecks.text,
          { guard: said('greeting'), actions: [touch, ...say((a) => ({ id: 'hello', name: currentAccount(a.context, accountsOf(a), now(a))?.name ?? '' })), ...sayMenu] },
          { guard: said('english'), actions: setLanguage(() => 'en') },
          { guard: said('spanish'), actions: setLanguage(() => 'es') },
          { guard: said('repeat'), actions: repeatLast },
          { guard: 'cartWord', target: 'VIEWING_CART', actions: [touch, ...sayPrompt('VIEWING_CART')] },
          unlinkLast,
          ...menuMoves,
          searchWords,
          menuChecks.fallback,
        ],
        REPLY: [...menuChecks.reply, unlinkLast, ...menuMoves, menuChecks.fallback],
        CATALOG_LOADED: searchResults('MAIN_MENU'),
        PRODUCTS_FAILED: { actions: [...say(() => ({ id: 'productsFailed' })), ...sayMenu] },
        REPEATED: [
          {
            guard: 'repeatedSome',
            target: 'CONFIRMING_ORDER',
            actions: [
              assign(({ context, event }) => {
                assertEvent(event, 'REPEATED')
                return { cart: event.lines.reduce(mergeLine, context.cart), cartId: event.cartId }
              }),
              ...say(({ event }) => ({ id: 'repeated', missing: event.type === 'REPEATED' ? event.missing : [] })),
              ...sayPrompt('CONFIRMING_ORDER'),
            ],
          },
          { actions: [...say(() => ({ id: 'repeatFailed', reason: 'stock' })), ...sayMenu] },
        ],
        REPEAT_FAILED: {
          actions: [...say(({ event }) => ({ id: 'repeatFailed', reason: event.type === 'REPEAT_FAILED' ? event.reason : 'unavailable' })), ...sayMenu],
        },
      },
    },
    BROWSING_PRODUCTS: {
      on: {
        ...everywhere('BROWSING_PRODUCTS'),
        AUTH_EXPIRED: expired,
        TEXT: [...browsingChecks.text, ...browsingMoves, searchWords, browsingChecks.fallback],
        REPLY: [...browsingChecks.reply, ...browsingMoves, browsingChecks.fallback],
        PRODUCTS_LOADED: [
          { guard: 'emptyPage', target: 'MAIN_MENU', actions: [...say(() => ({ id: 'noProducts' })), ...sayMenu] },
          { actions: [showCatalog, ...sayPrompt('BROWSING_PRODUCTS')] },
        ],
        PRODUCTS_FAILED: { target: 'MAIN_MENU', actions: [...say(() => ({ id: 'productsFailed' })), ...sayMenu] },
        CATALOG_LOADED: searchResults('BROWSING_PRODUCTS'),
      },
    },
    AWAITING_QUANTITY: {
      on: {
        ...everywhere('AWAITING_QUANTITY'),
        AUTH_EXPIRED: expired,
        TEXT: [
          ...quantityChecks.text,
          { guard: 'validQuantity', actions: [touch, addToCart(({ context, event }) => quantityIn(event, maxQuantity(context, context.selectedVariantId)) ?? 0)] },
          { actions: [touch, ...say(({ context }) => ({ id: 'badQuantity', max: maxQuantity(context, context.selectedVariantId) }))] },
        ],
        REPLY: [...quantityChecks.reply, quantityChecks.fallback],
        ADDED: {
          guard: 'addedSelected',
          target: 'VIEWING_CART',
          actions: [
            ...say(({ context, event }) => ({ id: 'added', title: selectedItem(context)?.title ?? '', quantity: event.type === 'ADDED' ? event.quantity : 0 })),
            addLine,
            ...sayPrompt('VIEWING_CART'),
          ],
        },
        ADD_FAILED: { actions: [...say((a) => ({ id: 'addFailed', reason: failureOf(a) })), ...sayPrompt('AWAITING_QUANTITY')] },
      },
    },
    VIEWING_CART: {
      on: {
        ...everywhere('VIEWING_CART'),
        AUTH_EXPIRED: expired,
        TEXT: [lineQuantity, ...cartChecks.text, ...cartMoves, searchWords, cartChecks.fallback],
        REPLY: [...cartChecks.reply, lineQuantity, ...cartMoves, cartChecks.fallback],
        LINE_SET: [
          {
            guard: 'cartEmptied',
            target: 'MAIN_MENU',
            actions: [clearCart, ...say(() => ({ id: 'cartEmpty' })), ...sayMenu],
          },
          {
            actions: [
              ...say(({ context, event }) => ({
                id: 'lineSet',
                title: context.cart.find((l) => event.type === 'LINE_SET' && l.variantId === event.variantId)?.title ?? '',
                quantity: event.type === 'LINE_SET' ? event.quantity : 0,
              })),
              assign(({ context, event }) => {
                assertEvent(event, 'LINE_SET')
                return { cart: setLine(context.cart, event.variantId, event.quantity) }
              }),
              ...sayPrompt('VIEWING_CART'),
            ],
          },
        ],
        LINE_FAILED: { actions: [...say((a) => ({ id: 'lineFailed', reason: failureOf(a) })), ...sayPrompt('VIEWING_CART')] },
        CATALOG_LOADED: searchResults('VIEWING_CART'),
        PRODUCTS_FAILED: { actions: [...say(() => ({ id: 'productsFailed' })), ...sayPrompt('VIEWING_CART')] },
      },
    },
    CONFIRMING_ORDER: {
      on: {
        ...everywhere('CONFIRMING_ORDER'),
        AUTH_EXPIRED: expired,
        TEXT: [
          ...confirmChecks.text,
          ...confirmMoves,
          { guard: said('yes'), actions: [touch, placeOrder] },
          { guard: said('no'), target: 'VIEWING_CART', actions: [touch, ...sayPrompt('VIEWING_CART')] },
          confirmChecks.fallback,
        ],
        REPLY: [...confirmChecks.reply, ...confirmMoves, confirmChecks.fallback],
        ORDER_PLACED: {
          target: 'MAIN_MENU',
          actions: [
            ...say(({ event }) => event.type === 'ORDER_PLACED' ? { id: 'orderPlaced', displayId: event.displayId, total: event.total } : { id: 'hint' }),
            clearCart,
            ...sayMenu,
          ],
        },
        ORDER_FAILED: {
          target: 'VIEWING_CART',
          actions: [...say((a) => ({ id: 'orderFailed', reason: failureOf(a) })), ...sayPrompt('VIEWING_CART')],
        },
      },
    },
  },
})

export type ConversationMachine = typeof conversationMachine
