import { setup, type ActionFunction } from 'xstate'
import {
  choiceOf,
  clubName,
  clubsReply,
  currentAccount,
  findProduct,
  findVariant,
  inCart,
  linkCodeOf,
  looksLikeCode,
  maxQuantity,
  menuItems,
  menuReply,
  mergeLine,
  nextProductsOffset,
  optionsOf,
  quantityOf,
  typedCodeOf,
  validAccounts,
  variantTitle,
  wordOf,
  type Word,
} from './conversation.logic.ts'
import {
  IDLE_RESET_MS,
  MAX_LINK_FAILURES,
  type AccountRef,
  type ConversationContext,
  type ConversationEffects,
  type ConversationEvent,
  type ConversationState,
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

/** The item a product or variant choice points at: a product with one variant, or a variant. */
function pickedVariant (args: Args): Variant | undefined {
  const choice = choiceOf(args.context, args.event)
  if (choice?.startsWith('variant:')) return findVariant(args.context, choice.slice('variant:'.length))?.variant
  if (choice?.startsWith('product:')) {
    const product = findProduct(args.context, choice.slice('product:'.length))
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
  return choice?.startsWith('tenant:') ? choice.slice('tenant:'.length) : undefined
}

function greeted (args: Args): string {
  const { event } = args
  const valid = validAccounts(accountsOf(args), now(args))
  const account = event.type === 'LINK_OK'
    ? valid.find((a) => a.tenantId === event.tenantId)
    : [...valid].sort((a, b) => b.linkedAt - a.linkedAt)[0]
  return account?.name ?? ''
}

function selectedItem (context: ConversationContext): { title: string, variant: Variant } | undefined {
  const found = findVariant(context, context.selectedVariantId)
  return found && { title: variantTitle(found.product, found.variant), variant: found.variant }
}

function prompt (state: ConversationState, context: ConversationContext): Reply {
  switch (state) {
    case 'UNLINKED': return { id: 'welcome' }
    case 'AWAITING_LINK_CODE': return { id: 'askCode' }
    case 'AWAITING_TENANT_SELECTION': return clubsReply(context)
    case 'MAIN_MENU': return menuReply(context)
    case 'BROWSING_PRODUCTS': {
      const product = findProduct(context, context.selectedProductId)
      if (product && product.variants.length > 1) return { id: 'variants', product }
      return { id: 'products', products: context.catalog, offset: context.catalogOffset, count: context.catalogCount }
    }
    case 'AWAITING_QUANTITY': {
      const item = selectedItem(context)
      if (!item) return { id: 'hint' }
      return { id: 'askQuantity', title: item.title, price: item.variant.price, stock: item.variant.stock, max: maxQuantity(context, item.variant.id) }
    }
    case 'VIEWING_CART': return { id: 'cart', items: context.cart }
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
    addToCart: effect<'addToCart'>(),
    placeOrder: effect<'placeOrder'>(),
    report: effect<'report'>(),
    unlink: effect<'unlink'>(),
  },
  guards: {
    chose: (args, params: { id: string }) => choiceOf(args.context, args.event) === params.id,
    offered: (args, params: { item: MenuItem }) =>
      choiceOf(args.context, args.event) === `menu:${params.item}` && menuItems(present(args)).includes(params.item),
    said: (args, params: { word: Word }) => wordOf(args.event) === params.word,
    sentLinkCode: (args) => linkCodeOf(args.event) !== undefined,
    typedCode: (args) => looksLikeCode(typedCodeOf(args.event)),
    accountLost: (args) => currentAccount(args.context, accountsOf(args), now(args)) === undefined,
    codeWhileLost: (args) => linkCodeOf(args.event) !== undefined && currentAccount(args.context, accountsOf(args), now(args)) === undefined,
    noClubs: (args) => validAccounts(accountsOf(args), now(args)).length === 0,
    // `menu` leaves the club choice only for a club that is still linked
    menuToClub: (args) => wordOf(args.event) === 'menu' && currentAccount(args.context, accountsOf(args), now(args)) !== undefined,
    idle: ({ context, event }) => 'at' in event && event.at - context.lastActivity > IDLE_RESET_MS,
    linkedClub: (args) => {
      const tenantId = chosenTenant(args)
      return tenantId !== undefined && validAccounts(accountsOf(args), now(args)).some((a) => a.tenantId === tenantId)
    },
    manyClubs: (args) => validAccounts(accountsOf(args), now(args)).length >= 2,
    lastLinkAttempt: ({ context }) => context.linkFailures + 1 >= MAX_LINK_FAILURES,
    productWithVariants: (args) => {
      const choice = choiceOf(args.context, args.event)
      return choice?.startsWith('product:') === true && (findProduct(args.context, choice.slice('product:'.length))?.variants.length ?? 0) > 1
    },
    available: (args) => {
      const variant = pickedVariant(args)
      return variant !== undefined && maxQuantity(args.context, variant.id) >= 1
    },
    soldOut: (args) => {
      const variant = pickedVariant(args)
      return variant !== undefined && maxQuantity(args.context, variant.id) < 1
    },
    validQuantity: (args) => quantityOf(args.event, maxQuantity(args.context, args.context.selectedVariantId)) !== undefined,
    cartEmptyChoice: (args) => choiceOf(args.context, args.event) === 'menu:cart' && args.context.cart.length === 0,
    addedSelected: ({ context, event }) => event.type === 'ADDED' && event.variantId === context.selectedVariantId,
    emptyPage: ({ event }) => event.type === 'PRODUCTS_LOADED' && event.products.length === 0,
  },
})

const { assign } = machineSetup

const touch = assign(({ context, event }) => 'at' in event ? { lastActivity: event.at, accounts: event.accounts } : context)
const learnAccounts = assign({ accounts: (args) => accountsOf(args) })
const clearSelection = assign({ selectedProductId: undefined, selectedVariantId: undefined })
const clearCart = assign({ cart: [], cartId: undefined })
const selectTenant = assign((args) => {
  const tenantId = chosenTenant(args)
  const same = tenantId === args.context.tenantId
  return {
    tenantId,
    linkFailures: 0,
    selectedProductId: undefined,
    selectedVariantId: undefined,
    ...(same ? {} : { cart: [], cartId: undefined, catalog: [], catalogOffset: 0, catalogCount: 0 }),
  }
})
const selectPicked = assign((args) => {
  const variant = pickedVariant(args)
  return { selectedVariantId: variant?.id, selectedProductId: findVariant(args.context, variant?.id)?.product.id }
})
const selectProduct = assign({
  selectedProductId: (args) => choiceOf(args.context, args.event)?.slice('product:'.length),
  selectedVariantId: undefined,
})
const addLine = assign(({ context, event }) => {
  if (event.type !== 'ADDED') return {}
  const found = findVariant(context, event.variantId)
  const line = {
    variantId: event.variantId,
    productId: found?.product.id ?? '',
    title: found ? variantTitle(found.product, found.variant) : event.variantId,
    quantity: event.quantity,
    unitPrice: found?.variant.price ?? 0,
  }
  return { cart: mergeLine(context.cart, line), cartId: event.cartId, selectedProductId: undefined, selectedVariantId: undefined }
})
const showCatalog = assign(({ event }) => event.type === 'PRODUCTS_LOADED'
  ? { catalog: event.products, catalogOffset: event.offset, catalogCount: event.count }
  : {})

/** Sends a reply; a reply that offers choices also records them, so that a bare number can pick one. */
function say (reply: (args: Args) => Reply) {
  return [
    assign({ options: (args) => optionsOf(reply(args)) ?? args.context.options }),
    { type: 'reply' as const, params: reply },
  ]
}
const sayPrompt = (state: ConversationState) => say(({ context }) => prompt(state, context))
const sayMenu = say(({ context }) => menuReply(context))
const fetchFirstPage = { type: 'fetchProducts' as const, params: ({ context }: Args) => ({ tenantId: context.tenantId ?? '', offset: 0 }) }

function consume (code: (event: ConversationEvent) => string | undefined) {
  return { type: 'consumeLinkCode' as const, params: ({ event }: Args) => ({ code: code(event) ?? '' }) }
}

/** A link succeeded (code or login form): the club choice when the phone now has 2 or more clubs, else the menu. */
const afterLink = [
  { guard: 'manyClubs' as const, target: '#conversation.AWAITING_TENANT_SELECTION', actions: [learnAccounts, ...say((a) => ({ id: 'greeting', name: greeted(a) })), ...say(({ context }) => clubsReply(context))] },
  { guard: 'linkedClub' as const, target: '#conversation.MAIN_MENU', actions: [learnAccounts, selectTenant, ...say((a) => ({ id: 'greeting', name: greeted(a) })), ...sayMenu] },
]

const linkFailed = (args: Args): Reply => ({ id: 'linkFailed', reason: args.event.type === 'LINK_FAILED' ? args.event.reason : 'invalid' })

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

// Handled the same way in every state.
const everywhere = {
  UNSUPPORTED: { actions: [...say(() => ({ id: 'unsupported' }))] },
  LINKED: [...afterLink],
  LINK_OK: [...afterLink],
}

const said = (word: Word) => ({ type: 'said' as const, params: { word } })
const chose = (id: string) => ({ type: 'chose' as const, params: { id } })
const offered = (item: MenuItem) => ({ type: 'offered' as const, params: { item } })
const consumeTyped = { guard: 'sentLinkCode' as const, actions: [touch, consume(linkCodeOf)] }
// a code sent after the link was lost is still used, from UNLINKED, where its result lands
const relinkWhileLost = { guard: 'codeWhileLost' as const, target: '#conversation.UNLINKED', actions: [touch, consume(linkCodeOf)] }

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
    { guard: said('help'), actions: [touch, ...say(() => ({ id: 'help' })), ...sayPrompt(state)] },
  ]
  return { text: [relinkWhileLost, consumeTyped, ...checks, ...words], reply: checks, fallback: unexpected(state) }
}

const unlinkedChoices = [
  { guard: chose('link:login'), actions: [touch, { type: 'sendLoginForm' as const }] },
  { guard: chose('link:code'), target: 'AWAITING_LINK_CODE', actions: [touch, assign({ linkFailures: 0 }), ...say(() => ({ id: 'askCode' }))] },
]
const welcomeAgain = { actions: [touch, ...say(() => ({ id: 'welcome' }))] }
const unlinkedInput = {
  TEXT: [consumeTyped, ...unlinkedChoices, welcomeAgain],
  REPLY: [...unlinkedChoices, welcomeAgain],
}

const awaitingCodeInput = {
  TEXT: [
    { guard: 'typedCode' as const, actions: [touch, consume(typedCodeOf)] },
    { guard: said('help'), actions: [touch, ...say(() => ({ id: 'askCode' }))] },
    { guard: said('cancel'), target: 'UNLINKED', actions: [touch, ...say(() => ({ id: 'welcome' }))] },
    { guard: said('menu'), target: 'UNLINKED', actions: [touch, ...say(() => ({ id: 'welcome' }))] },
    // anything else typed here was meant as a code
    ...codeRefused.map((t) => ({ ...t, actions: [touch, ...t.actions] })),
  ],
  // the bot offers no numbered choices here: a number typed is a (wrong) code
  REPLY: [
    { guard: chose('link:login'), target: 'UNLINKED', actions: [touch, { type: 'sendLoginForm' as const }] },
    { guard: chose('link:code'), actions: [touch, ...say(() => ({ id: 'askCode' }))] },
    unexpected('AWAITING_LINK_CODE'),
  ],
}

const noClubs = { guard: 'noClubs' as const, ...expired, actions: [touch, ...expired.actions] }
const clubChosen = { guard: 'linkedClub' as const, target: 'MAIN_MENU', actions: [touch, selectTenant, ...sayMenu] }
const tenantInput = {
  TEXT: [
    consumeTyped,
    noClubs,
    { guard: 'menuToClub' as const, target: 'MAIN_MENU', actions: [touch, ...sayMenu] },
    { guard: said('help'), actions: [touch, ...say(() => ({ id: 'help' })), ...sayPrompt('AWAITING_TENANT_SELECTION')] },
    clubChosen,
    unexpected('AWAITING_TENANT_SELECTION'),
  ],
  REPLY: [noClubs, clubChosen, unexpected('AWAITING_TENANT_SELECTION')],
}

const menuChecks = linkedChecks('MAIN_MENU', false)
const menuMoves = [
  { guard: chose('menu:browse'), target: 'BROWSING_PRODUCTS', actions: [touch, clearSelection, fetchFirstPage] },
  { guard: 'cartEmptyChoice' as const, actions: [touch, ...say(() => ({ id: 'cartEmpty' })), ...sayMenu] },
  { guard: chose('menu:cart'), target: 'VIEWING_CART', actions: [touch, ...sayPrompt('VIEWING_CART')] },
  ...(['orders', 'notifications', 'crops'] as const).map((what) => ({
    guard: offered(what),
    actions: [touch, { type: 'report' as const, params: ({ context }: Args) => ({ tenantId: context.tenantId ?? '', what }) }, ...sayMenu],
  })),
  { guard: offered('switch-club'), target: 'AWAITING_TENANT_SELECTION', actions: [touch, ...say(({ context }) => clubsReply(context))] },
  {
    guard: chose('menu:unlink'),
    target: 'UNLINKED',
    actions: [
      touch,
      { type: 'unlink' as const, params: ({ context }: Args) => ({ tenantId: context.tenantId ?? '' }) },
      ...say(({ context }) => ({ id: 'unlinked', clubName: clubName(context) })),
      assign({ tenantId: undefined, cart: [], cartId: undefined, catalog: [], catalogOffset: 0, catalogCount: 0 }),
      ...say(() => ({ id: 'welcome' })),
    ],
  },
]
const menuInput = {
  TEXT: [...menuChecks.text, ...menuMoves, menuChecks.fallback],
  REPLY: [...menuChecks.reply, ...menuMoves, menuChecks.fallback],
}

const browsingChecks = linkedChecks('BROWSING_PRODUCTS', true)
const browsingMoves = [
  {
    guard: chose('products:more'),
    actions: [touch, clearSelection, { type: 'fetchProducts' as const, params: ({ context }: Args) => ({ tenantId: context.tenantId ?? '', offset: nextProductsOffset(context) }) }],
  },
  { guard: 'available' as const, target: 'AWAITING_QUANTITY', actions: [touch, selectPicked, ...sayPrompt('AWAITING_QUANTITY')] },
  { guard: 'soldOut' as const, actions: [touch, ...say((a) => ({ id: 'outOfStock', title: pickedVariant(a)?.title ?? '' })), ...sayPrompt('BROWSING_PRODUCTS')] },
  { guard: 'productWithVariants' as const, actions: [touch, selectProduct, ...sayPrompt('BROWSING_PRODUCTS')] },
]
const browsingInput = {
  TEXT: [...browsingChecks.text, ...browsingMoves, browsingChecks.fallback],
  REPLY: [...browsingChecks.reply, ...browsingMoves, browsingChecks.fallback],
}

const quantityChecks = linkedChecks('AWAITING_QUANTITY', true)
const quantityMoves = [
  {
    guard: 'validQuantity' as const,
    actions: [touch, {
      type: 'addToCart' as const,
      params: ({ context, event }: Args) => {
        const variantId = context.selectedVariantId ?? ''
        const quantity = quantityOf(event, maxQuantity(context, variantId)) ?? 0
        return { tenantId: context.tenantId ?? '', cartId: context.cartId, variantId, quantity, target: inCart(context.cart, variantId) + quantity }
      },
    }],
  },
  { actions: [touch, ...say(({ context }) => ({ id: 'badQuantity', max: maxQuantity(context, context.selectedVariantId) }))] },
]
const quantityInput = {
  TEXT: [...quantityChecks.text, ...quantityMoves],
  REPLY: [...quantityChecks.reply, quantityChecks.fallback],
}

const cartChecks = linkedChecks('VIEWING_CART', true)
const cartMoves = [
  { guard: chose('cart:checkout'), target: 'CONFIRMING_ORDER', actions: [touch, ...sayPrompt('CONFIRMING_ORDER')] },
  { guard: chose('cart:browse'), target: 'BROWSING_PRODUCTS', actions: [touch, clearSelection, fetchFirstPage] },
  { guard: chose('cart:clear'), target: 'MAIN_MENU', actions: [touch, clearCart, ...say(() => ({ id: 'cartCleared' })), ...sayMenu] },
]
const cartInput = {
  TEXT: [...cartChecks.text, ...cartMoves, cartChecks.fallback],
  REPLY: [...cartChecks.reply, ...cartMoves, cartChecks.fallback],
}

const confirmChecks = linkedChecks('CONFIRMING_ORDER', true)
const confirmMoves = [
  {
    guard: chose('order:confirm'),
    actions: [touch, { type: 'placeOrder' as const, params: ({ context }: Args) => ({ tenantId: context.tenantId ?? '', cartId: context.cartId ?? '' }) }],
  },
  { guard: chose('order:cancel'), target: 'VIEWING_CART', actions: [touch, ...sayPrompt('VIEWING_CART')] },
]
const confirmInput = {
  TEXT: [...confirmChecks.text, ...confirmMoves, confirmChecks.fallback],
  REPLY: [...confirmChecks.reply, ...confirmMoves, confirmChecks.fallback],
}

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
        ...everywhere,
        ...unlinkedInput,
        LINK_FAILED: { actions: [...say(linkFailed), ...say(() => ({ id: 'welcome' }))] },
      },
    },
    AWAITING_LINK_CODE: {
      on: {
        ...everywhere,
        ...awaitingCodeInput,
        LINK_FAILED: codeRefused,
      },
    },
    AWAITING_TENANT_SELECTION: {
      on: {
        ...everywhere,
        ...tenantInput,
        LINK_FAILED: { actions: [...say(linkFailed), ...sayPrompt('AWAITING_TENANT_SELECTION')] },
        AUTH_EXPIRED: expired,
      },
    },
    MAIN_MENU: {
      on: {
        ...everywhere,
        ...menuInput,
        LINK_FAILED: { actions: [...say(linkFailed), ...sayMenu] },
        AUTH_EXPIRED: expired,
      },
    },
    BROWSING_PRODUCTS: {
      on: {
        ...everywhere,
        ...browsingInput,
        LINK_FAILED: { actions: [...say(linkFailed), ...sayPrompt('BROWSING_PRODUCTS')] },
        PRODUCTS_LOADED: [
          { guard: 'emptyPage', target: 'MAIN_MENU', actions: [...say(() => ({ id: 'noProducts' })), ...sayMenu] },
          { actions: [showCatalog, ...sayPrompt('BROWSING_PRODUCTS')] },
        ],
        PRODUCTS_FAILED: { target: 'MAIN_MENU', actions: [...say(() => ({ id: 'productsFailed' })), ...sayMenu] },
        AUTH_EXPIRED: expired,
      },
    },
    AWAITING_QUANTITY: {
      on: {
        ...everywhere,
        ...quantityInput,
        LINK_FAILED: { actions: [...say(linkFailed), ...sayPrompt('AWAITING_QUANTITY')] },
        ADDED: {
          guard: 'addedSelected',
          target: 'VIEWING_CART',
          actions: [
            ...say(({ context, event }) => ({ id: 'added', title: selectedItem(context)?.title ?? '', quantity: event.type === 'ADDED' ? event.quantity : 0 })),
            addLine,
            ...sayPrompt('VIEWING_CART'),
          ],
        },
        ADD_FAILED: { actions: [...say(({ event }) => ({ id: 'addFailed', reason: event.type === 'ADD_FAILED' ? event.reason : 'unavailable' })), ...sayPrompt('AWAITING_QUANTITY')] },
        AUTH_EXPIRED: expired,
      },
    },
    VIEWING_CART: {
      on: {
        ...everywhere,
        ...cartInput,
        LINK_FAILED: { actions: [...say(linkFailed), ...sayPrompt('VIEWING_CART')] },
        AUTH_EXPIRED: expired,
      },
    },
    CONFIRMING_ORDER: {
      on: {
        ...everywhere,
        ...confirmInput,
        LINK_FAILED: { actions: [...say(linkFailed), ...sayPrompt('CONFIRMING_ORDER')] },
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
          actions: [...say(({ event }) => ({ id: 'orderFailed', reason: event.type === 'ORDER_FAILED' ? event.reason : 'unavailable' })), ...sayPrompt('VIEWING_CART')],
        },
        AUTH_EXPIRED: expired,
      },
    },
  },
})

export type ConversationMachine = typeof conversationMachine
