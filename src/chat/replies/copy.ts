import { MEDIA_KINDS, type MediaKind } from '../provider/media.ts'
import type { CommerceFailure, ConversationState, LinkFailure, Locale, MenuItem, RuleRefusal } from '../../../machines/conversation.types.ts'

// The bot's words, in Spanish (the default) and English: the member's choice, else the club's locale.

export type { Locale }

/** Human handoff: a person asked for, handed back, or nobody came in time. */
interface HandoffCopy {
  requested: (club: string, hours: string | undefined) => string
  back: string
  timedOut: string
}

export interface Copy {
  welcome: string
  loginButton: string
  codeButton: string
  loginForm: string
  loginCta: string
  askCode: string
  linkFailed: (reason: LinkFailure, attemptsLeft: number | undefined) => string
  greeting: (name: string) => string
  hello: (name: string) => string
  chooseClub: string
  clubsButton: string
  menu: (club: string) => string
  menuButton: string
  menuItems: Record<MenuItem, string>
  products: (from: number, to: number, count: number) => string
  productsButton: string
  more: string
  moreDescription: string
  first: string
  firstDescription: string
  matches: (query: string, count: number) => string
  noMatch: (query: string) => string
  variantCount: (count: number, from: string) => string
  noProducts: string
  productsFailed: string
  variants: (product: string) => string
  variantsButton: string
  priceStock: (price: string, stock: number | null) => string
  fromPrice: (price: string) => string
  outOfStock: (title: string) => string
  askQuantity: (title: string, price: string, stock: number | null, max: number) => string
  badQuantity: (max: number) => string
  added: (quantity: number, title: string) => string
  addFailed: (reason: CommerceFailure) => string
  cart: string
  cartLine: (quantity: number, title: string, total: string) => string
  total: (total: string) => string
  andMore: (count: number) => string
  cartButtons: { checkout: string, browse: string, edit: string, all: string }
  editCart: string
  clearRow: string
  clearDescription: string
  lineRow: (quantity: number, total: string) => string
  askLineQuantity: (title: string, quantity: number, max: number) => string
  removeButton: string
  lineSet: (title: string, quantity: number) => string
  lineFailed: (reason: CommerceFailure) => string
  confirmClear: string
  confirmUnlink: (club: string) => string
  yesNo: { clearCart: string, unlink: string, no: string }
  repeated: (missing: string[]) => string
  repeatFailed: (reason: 'none' | CommerceFailure) => string
  language: string
  /** Answers to turning order updates and reminders in the chat on / off. */
  updatesOn: string
  updatesOff: string
  cartEmpty: string
  cartCleared: string
  summary: string
  pickupCash: string
  /** The club's pickup details, when it has set them (PATCH /api/club). */
  pickupAt: (address: string, hours: string) => string
  confirmButtons: { confirm: string, cancel: string }
  orderPlaced: (displayId: string, total: string) => string
  orderFailed: (reason: CommerceFailure) => string
  orderUnknown: string
  /** The grams still possible in the tightest period in force ("18 g left this month"). */
  gramsLeft: (grams: string, period: Extract<RuleRefusal, { kind: 'limit' }>['period']) => string
  /** Why a member who is not active may not order, and what to do; they may still talk and ask for a person. */
  standing: (status: string) => string
  /** An order the club's rules refused: what is still possible, or why and what to do (a status: `standing`). */
  orderRefused: (refusal: RuleRefusal, grams: (n: number) => string) => string
  /** A quantity over a cap: the grams (and units) this line may still grow by in the period. */
  addRefused: (refusal: Extract<RuleRefusal, { kind: 'limit' }>, grams: string, units: number | undefined) => string
  timeout: string
  sessionExpired: string
  unlinked: (club: string) => string
  /** The answer to a message that is not text, by its kind (the location's adds the club's pickup, when known). */
  media: Record<MediaKind, string>
  hint: string
  help: Record<ConversationState, string>
  reportFailed: string
  /** `club`: the club's orders, as staff see them, rather than the member's own. */
  orders: (lines: string[], club: boolean) => string
  orderLine: (displayId: string, status: string, total: string) => string
  notifications: (unread: number, lines: string[]) => string
  crops: (groups: Array<{ status: string, names: string[] }>) => string
  /** The API's status values in the member's words; a value not listed shows as it is. */
  statusNames: Record<string, string>
  handoff: HandoffCopy
}

const KINDS: ReadonlySet<string> = new Set(MEDIA_KINDS)

/**
 * The one answer to a message that is not text: its kind's words (a kind not known answers as `other`) and, for
 * a location, where and when the club's members pick up when the club has set it. What the state offers follows.
 */
export function mediaAnswer (copy: Copy, media: string, pickup: { address: string, hours: string } | undefined): string {
  const kind: MediaKind = KINDS.has(media) ? media as MediaKind : 'other'
  return kind === 'location' && pickup ? `${copy.media.location} ${copy.pickupAt(pickup.address, pickup.hours)}` : copy.media[kind]
}

/** A status value as the member reads it. */
export function statusName (copy: Copy, status: string): string {
  return Object.hasOwn(copy.statusNames, status) ? copy.statusNames[status] as string : status
}

const es: Copy = {
  welcome: '¡Hola! Para usar el bot vinculá tu cuenta del club: iniciá sesión acá mismo o enviá el código que ves en la web del club.',
  loginButton: 'Iniciar sesión',
  codeButton: 'Tengo un código',
  loginForm: 'Elegí tu club e iniciá sesión con tu email y contraseña.',
  loginCta: 'Iniciar sesión',
  askCode: 'Enviá el código que ves en la web del club (por ejemplo LINK-1234abcd-…).',
  linkFailed: (reason, left) => {
    const why = reason === 'not_found'
      ? 'Ese código no existe, venció o ya se usó. Generá uno nuevo en la web del club.'
      : reason === 'invalid' ? 'Eso no parece un código válido.' : 'No pudimos verificar el código ahora. Probá de nuevo en un momento.'
    if (left === undefined) return why
    return left > 0 ? `${why} Te quedan ${left} intento(s).` : `${why} Empecemos de nuevo.`
  },
  greeting: (name) => `¡Hola, ${name}! Tu cuenta quedó vinculada.`,
  hello: (name) => `¡Hola${name ? `, ${name}` : ''}!`,
  chooseClub: '¿Con qué club querés seguir?',
  clubsButton: 'Elegir club',
  menu: (club) => `${club}: ¿qué querés hacer?`,
  menuButton: 'Ver opciones',
  menuItems: {
    browse: 'Ver productos',
    cart: 'Mi carrito',
    repeat: 'Repetir último pedido',
    orders: 'Mis pedidos',
    notifications: 'Notificaciones',
    crops: 'Cultivos',
    'switch-club': 'Cambiar de club',
    person: 'Hablar con una persona',
    language: 'English',
    'updates-off': 'Apagar avisos',
    'updates-on': 'Encender avisos',
    unlink: 'Desvincular',
  },
  products: (from, to, count) => `Productos ${from}-${to} de ${count}. Elegí uno:`,
  productsButton: 'Ver productos',
  more: 'Ver más',
  moreDescription: 'Siguiente página',
  first: 'Volver al inicio',
  firstDescription: 'Primera página',
  matches: (query, count) => `Encontré ${count} productos para "${query}". Elegí uno:`,
  noMatch: (query) => `No encontré productos para "${query}". Probá con otras palabras, o elegí una opción.`,
  variantCount: (count, from) => `${count} variantes, desde ${from}`,
  noProducts: 'Este club no tiene productos disponibles por ahora.',
  productsFailed: 'No pudimos cargar los productos. Probá de nuevo en un momento.',
  variants: (product) => `${product}: elegí una variante.`,
  variantsButton: 'Ver variantes',
  priceStock: (price, stock) => stock === null ? price : `${price} · stock ${stock}`,
  fromPrice: (price) => `desde ${price}`,
  outOfStock: (title) => `${title} no tiene stock disponible.`,
  askQuantity: (title, price, stock, max) =>
    `${title}: ${price} c/u${stock === null ? '' : `, stock ${stock}`}. ¿Cuántas unidades querés? Respondé un número del 1 al ${max}.`,
  badQuantity: (max) => `Necesito un número del 1 al ${max} (por ejemplo 2 o "dos"). Escribí "menu" para volver.`,
  added: (quantity, title) => `Agregado: ${quantity} × ${title}.`,
  addFailed: (reason) =>
    reason === 'stock' ? 'No hay stock suficiente para esa cantidad.' : 'No pudimos agregarlo al carrito ahora. Probá de nuevo en un momento.',
  cart: 'Tu carrito:',
  cartLine: (quantity, title, total) => `${quantity} × ${title}: ${total}`,
  total: (total) => `Total: ${total}`,
  andMore: (count) => `… y ${count} más`,
  cartButtons: { checkout: 'Confirmar pedido', browse: 'Seguir comprando', edit: 'Editar carrito', all: 'Ver todo' },
  editCart: 'Elegí el producto a cambiar o quitar:',
  clearRow: 'Vaciar carrito',
  clearDescription: 'Quitar todos los productos',
  lineRow: (quantity, total) => `${quantity} u. · ${total}`,
  askLineQuantity: (title, quantity, max) => `${title}: tenés ${quantity}. Escribí la nueva cantidad (0 a ${max}; 0 lo quita).`,
  removeButton: 'Quitar',
  lineSet: (title, quantity) => quantity === 0 ? `Quitamos ${title} del carrito.` : `Listo: ${quantity} × ${title}.`,
  lineFailed: (reason) =>
    reason === 'stock' ? 'No hay stock suficiente para esa cantidad.' : 'No pudimos cambiar el carrito ahora. Probá de nuevo en un momento.',
  confirmClear: '¿Vaciar el carrito? Se quitan todos los productos.',
  confirmUnlink: (club) => `¿Desvincular este teléfono de ${club}? Vas a tener que volver a vincularlo para pedir.`,
  yesNo: { clearCart: 'Sí, vaciar', unlink: 'Sí, desvincular', no: 'No' },
  repeated: (missing) => `Pusimos tu último pedido en el carrito.${missing.length ? ` Sin stock o no disponibles ahora: ${missing.join(', ')}.` : ''}`,
  repeatFailed: (reason) => reason === 'none'
    ? 'Todavía no tenés pedidos para repetir.'
    : reason === 'stock' ? 'Los productos de tu último pedido no están disponibles ahora.' : 'No pudimos traer tu último pedido. Probá de nuevo en un momento.',
  language: 'Listo, te escribo en español.',
  updatesOn: 'Listo: te aviso por acá cuando tu pedido esté listo, y te mando los recordatorios.',
  updatesOff: 'Listo: no te mando más avisos por acá. Los seguís viendo en la app.',
  cartEmpty: 'Tu carrito está vacío.',
  cartCleared: 'Vaciamos tu carrito.',
  summary: 'Revisá tu pedido:',
  pickupCash: 'Retiro en el club, pago en efectivo.',
  pickupAt: (address, hours) => `Retirás en ${address} (${hours}).`,
  confirmButtons: { confirm: 'Confirmar', cancel: 'Volver' },
  orderPlaced: (id, total) =>
    `¡Listo! Pedido #${id} realizado (${total}). Te avisamos cuando esté para retirar. La hoja informativa de cada lote (peso, cosecha, vencimiento, ` +
      'THC y CBD) va impresa con tu pedido; pedila en el club si te falta.',
  orderFailed: (reason) => reason === 'stock'
    ? 'No pudimos confirmar el pedido: falta stock de algún producto. Tu carrito sigue guardado.'
    : 'No pudimos confirmar el pedido ahora. Tu carrito sigue guardado; probá de nuevo en un momento.',
  orderUnknown: 'Puede que tu pedido haya entrado: el sistema del club no respondió a tiempo. Lo revisamos en unos minutos y, si entró, ' +
    'te llega el aviso "Pedido recibido". Antes de pedir de nuevo mirá "Mis pedidos".',
  gramsLeft: (grams, period) => `Te quedan ${grams} g ${({ day: 'hoy', month: 'este mes', year: 'este año' })[period]}.`,
  standing: (status) => `${({
    pending: 'Tu membresía espera el control de identidad: el club lo registra en el local con tu documento.',
    suspended: 'Tu membresía está suspendida: hablá con el club.',
    lapsed: 'Tu membresía venció: renovala con el club (por ejemplo tu registro) para volver a pedir.',
    ended: 'Tu membresía terminó: hablá con el club si querés volver.',
  } as Record<string, string>)[status] ?? ('Por ahora no podés hacer pedidos: hablá con el ' +
    'club.')} Podés seguir escribiendo, o pedir una persona escribiendo "persona".`,
  addRefused: (refusal, grams, units) => {
    const when = ({ day: 'hoy', month: 'este mes', year: 'este año' })[refusal.period]
    const limit = `tu límite ${({ day: 'diario', month: 'mensual', year: 'anual' })[refusal.period]}`
    return units === 0 || refusal.remaining <= 0
      ? `Con esa cantidad pasás ${limit}: no podés sumar más ${when}. Tu carrito sigue como estaba.`
      : `Con esa cantidad pasás ${limit}: podés sumar hasta ${grams} g más ${when}${units === undefined
        ? ''
        : ` (${units} ${units === 1 ? 'unidad' : 'unidades'})`}.`
  },
  orderRefused: (refusal, grams) => refusal.kind === 'limit'
    ? refusal.remaining > 0
      ? `Este pedido pasa tu límite ${({ day: 'diario', month: 'mensual', year: 'anual' })[refusal.period]}: te quedan ${grams(refusal.remaining)} g ${({
        day: 'hoy', month: 'este mes', year: 'este año'
      })[refusal.period]}. Bajá la cantidad en "Editar carrito" y confirmá de nuevo.`
      : `Ya llegaste a tu límite ${({ day: 'diario', month: 'mensual', year: 'anual' })[refusal.period]}: no te quedan gramos ${({
        day: 'hoy', month: 'este mes', year: 'este año'
      })[refusal.period]}. Tu carrito sigue guardado.`
    : ({
        registration: 'Tu registro venció: renovalo y avisá al club para volver a pedir.',
        minAge: 'El club no entrega a menores de la edad mínima.',
        minMembershipDays: 'Todavía no cumpliste los días de membresía que el club pide antes de la primera entrega.',
        allowanceRequired: 'El club necesita tu previsión de consumo firmada antes de entregarte: hablá con el club.',
        thcCeiling: 'Algún producto del carrito pasa el THC permitido para tu edad: quitalo en "Editar carrito".',
      } as Record<string, string>)[refusal.reason] ?? 'Por ahora no podés hacer pedidos: hablá con el club.',
  timeout: 'Pasó un rato sin actividad, así que volvimos al menú. Tu carrito sigue guardado.',
  sessionExpired: 'Tu sesión venció. Por favor iniciá sesión de nuevo.',
  unlinked: (club) => `Listo, desvinculamos este teléfono de ${club}.`,
  media: {
    audio: 'No puedo escuchar audios. Escribí lo que necesitás o elegí una opción del menú.',
    image: 'No puedo ver imágenes. Contame por escrito qué necesitás; si alguien del club tiene que verla, pedí hablar con una persona.',
    video: 'No puedo ver videos. Contame por escrito qué necesitás; si alguien del club tiene que verlo, pedí hablar con una persona.',
    document: 'No puedo abrir documentos. Contame por escrito qué necesitás; si alguien del club tiene que verlo, pedí hablar con una persona.',
    contacts: 'No puedo leer contactos. Escribí lo que necesitás o elegí una opción del menú.',
    location: 'Gracias por la ubicación, pero no la uso: los pedidos se retiran en el club.',
    sticker: '¡Lindo sticker! 😄',
    reaction: '👍 ¡Recibido!',
    other: 'Por ahora sólo entiendo texto y los botones del menú.',
  },
  hint: 'No entendí eso.',
  help: {
    UNLINKED: 'Para empezar, vinculá tu cuenta del club: tocá "Iniciar sesión" para entrar con tu email y contraseña, ' +
      'o "Tengo un código" si ya tenés el código de la web del club.',
    AWAITING_LINK_CODE: 'Pegá el código que ves en la web del club después de iniciar sesión (se ve como LINK-1234abcd-…). Escribí "cancelar" para volver.',
    AWAITING_TENANT_SELECTION: 'Elegí un club de la lista, respondé su número o escribí su nombre. "menu" vuelve al menú del club actual.',
    MAIN_MENU: 'Elegí una opción o respondé su número. También podés escribir lo que buscás ("gelato", "quiero 2 amnesia"), "carrito", ' +
      '"repetir" para repetir tu último pedido, o "English".',
    BROWSING_PRODUCTS: 'Elegí un producto o respondé su número, o escribí lo que buscás ("2 gelato 5g"). "menu" vuelve al menú.',
    AWAITING_QUANTITY: 'Respondé cuántas unidades querés, con número o letras ("2" o "dos"). "cancelar" vuelve al menú.',
    VIEWING_CART: 'Confirmá el pedido, editá el carrito para cambiar cantidades o quitar productos, o seguí comprando. "menu" vuelve al menú; ' +
      'tu carrito queda guardado.',
    CONFIRMING_ORDER: 'Tocá "Confirmar" (o escribí "sí") para hacer el pedido, o "Volver" para cambiar el carrito. Se retira en el club y se paga en efectivo.',
  },
  reportFailed: 'No pudimos traer esa información ahora. Probá de nuevo en un momento.',
  orders: (lines, club) => lines.length === 0
    ? (club ? 'El club todavía no tiene pedidos.' : 'Todavía no tenés pedidos.')
    : `${club ? 'Últimos pedidos del club' : 'Tus últimos pedidos'}:\n${lines.join('\n')}`,
  orderLine: (id, status, total) => `#${id} · ${status} · ${total}`,
  notifications: (unread, lines) => `Tenés ${unread} notificación(es) sin leer.${lines.length ? `\n${lines.join('\n')}` : ''}`,
  crops: (groups) =>
    groups.length === 0
      ? 'No hay cultivos.'
      : `Cultivos por estado:\n${groups.map((g) => `${g.status} (${g.names.length}): ${g.names.join(', ')}`).join('\n')}`,
  statusNames: {
    pending: 'pendiente',
    requires_action: 'requiere atención',
    completed: 'completado',
    canceled: 'cancelado',
    IDEATING: 'Planificación',
    PROPAGATING: 'Propagación',
    VEGETATING: 'Vegetativo',
    FLOWERING: 'Floración',
    HARVESTING: 'Cosecha',
    DRYING: 'Secado',
    MANICURING: 'Manicurado',
    CURING: 'Curado',
    FINISHED: 'Finalizado',
  },
  handoff: {
    requested: (club, hours) =>
      `Listo, le avisamos a ${club}. Una persona del club te va a responder por acá${hours
        ? ` (horario: ${hours})`
        : ' en cuanto pueda'}. Mientras tanto el bot no contesta.`,
    back: 'Volvés a hablar con el bot. Escribí "menu" para ver las opciones.',
    timedOut: 'Perdón, nadie del club pudo responder a tiempo. Seguís con el bot; podés volver a pedir una persona cuando quieras.',
  },
}

const en: Copy = {
  welcome: 'Hi! To use the bot, link your club account: log in right here or send the code you see on the club\'s website.',
  loginButton: 'Log in',
  codeButton: 'I have a code',
  loginForm: 'Choose your club and log in with your email and password.',
  loginCta: 'Log in',
  askCode: 'Send the code you see on the club\'s website (for example LINK-1234abcd-…).',
  linkFailed: (reason, left) => {
    const why = reason === 'not_found'
      ? 'That code does not exist, has expired or was already used. Get a new one on the club\'s website.'
      : reason === 'invalid' ? 'That does not look like a valid code.' : 'We could not check the code right now. Please try again in a moment.'
    if (left === undefined) return why
    return left > 0 ? `${why} ${left} attempt(s) left.` : `${why} Let's start over.`
  },
  greeting: (name) => `Hi ${name}! Your account is linked.`,
  hello: (name) => `Hi${name ? ` ${name}` : ''}!`,
  chooseClub: 'Which club do you want to continue with?',
  clubsButton: 'Choose club',
  menu: (club) => `${club}: what would you like to do?`,
  menuButton: 'Options',
  menuItems: {
    browse: 'Browse products',
    cart: 'My cart',
    repeat: 'Repeat last order',
    orders: 'My orders',
    notifications: 'Notifications',
    crops: 'Crops',
    'switch-club': 'Switch club',
    person: 'Talk to a person',
    language: 'Español',
    'updates-off': 'Turn updates off',
    'updates-on': 'Turn updates on',
    unlink: 'Unlink',
  },
  products: (from, to, count) => `Products ${from}-${to} of ${count}. Pick one:`,
  productsButton: 'Products',
  more: 'More',
  moreDescription: 'Next page',
  first: 'Back to start',
  firstDescription: 'First page',
  matches: (query, count) => `I found ${count} products for "${query}". Pick one:`,
  noMatch: (query) => `I found no products for "${query}". Try other words, or pick an option.`,
  variantCount: (count, from) => `${count} variants, from ${from}`,
  noProducts: 'This club has no products available right now.',
  productsFailed: 'We could not load the products. Please try again in a moment.',
  variants: (product) => `${product}: pick a variant.`,
  variantsButton: 'Variants',
  priceStock: (price, stock) => stock === null ? price : `${price} · ${stock} in stock`,
  fromPrice: (price) => `from ${price}`,
  outOfStock: (title) => `${title} is out of stock.`,
  askQuantity: (title, price, stock, max) =>
    `${title}: ${price} each${stock === null ? '' : `, ${stock} in stock`}. How many would you like? Reply with a number from 1 to ${max}.`,
  badQuantity: (max) => `I need a number from 1 to ${max} (for example 2 or "two"). Type "menu" to go back.`,
  added: (quantity, title) => `Added: ${quantity} × ${title}.`,
  addFailed: (reason) =>
    reason === 'stock' ? 'There is not enough stock for that quantity.' : 'We could not add it to your cart right now. Please try again in a moment.',
  cart: 'Your cart:',
  cartLine: (quantity, title, total) => `${quantity} × ${title}: ${total}`,
  total: (total) => `Total: ${total}`,
  andMore: (count) => `… and ${count} more`,
  cartButtons: { checkout: 'Check out', browse: 'Keep shopping', edit: 'Edit cart', all: 'See all' },
  editCart: 'Pick the product to change or remove:',
  clearRow: 'Empty cart',
  clearDescription: 'Remove every product',
  lineRow: (quantity, total) => `${quantity} pcs · ${total}`,
  askLineQuantity: (title, quantity, max) => `${title}: you have ${quantity}. Type the new quantity (0 to ${max}; 0 removes it).`,
  removeButton: 'Remove',
  lineSet: (title, quantity) => quantity === 0 ? `Removed ${title} from your cart.` : `Done: ${quantity} × ${title}.`,
  lineFailed: (reason) =>
    reason === 'stock' ? 'There is not enough stock for that quantity.' : 'We could not change your cart right now. Please try again in a moment.',
  confirmClear: 'Empty your cart? Every product will be removed.',
  confirmUnlink: (club) => `Unlink this phone from ${club}? You will need to link it again to order.`,
  yesNo: { clearCart: 'Yes, empty it', unlink: 'Yes, unlink', no: 'No' },
  repeated: (missing) => `Your last order is in your cart.${missing.length ? ` Out of stock or unavailable now: ${missing.join(', ')}.` : ''}`,
  repeatFailed: (reason) => reason === 'none'
    ? 'You have no orders to repeat yet.'
    : reason === 'stock' ? 'The products of your last order are not available right now.' : 'We could not fetch your last order. Please try again in a moment.',
  language: 'Done, I will write in English.',
  updatesOn: 'Done: I will tell you here when your order is ready, and send you reminders.',
  updatesOff: 'Done: no more updates here. You still see them in the app.',
  cartEmpty: 'Your cart is empty.',
  cartCleared: 'Your cart is now empty.',
  summary: 'Please review your order:',
  pickupCash: 'Pickup at the club, cash payment.',
  pickupAt: (address, hours) => `Pick it up at ${address} (${hours}).`,
  confirmButtons: { confirm: 'Confirm', cancel: 'Back' },
  orderPlaced: (id, total) =>
    `Done! Order #${id} placed (${total}). We will let you know when it is ready for pickup. The info sheet of each batch (weight, harvest, best-before, ` +
      'THC and CBD) comes printed with your order; ask at the club if it is missing.',
  orderFailed: (reason) => reason === 'stock'
    ? 'We could not place the order: a product is short of stock. Your cart is kept.'
    : 'We could not place the order right now. Your cart is kept; please try again in a moment.',
  orderUnknown: 'Your order may have gone through: the club\'s system did not answer in time. It is checked again within a few minutes and, ' +
    'if it went through, you get the notice "Order received". Look at "My orders" before ordering again.',
  gramsLeft: (grams, period) => `${grams} g left ${({ day: 'today', month: 'this month', year: 'this year' })[period]}.`,
  standing: (status) => `${({
    pending: 'Your membership awaits the identity check: the club records it on the premises with your document.',
    suspended: 'Your membership is suspended: talk to the club.',
    lapsed: 'Your membership has lapsed: renew it with the club (your registration, for example) to order again.',
    ended: 'Your membership has ended: talk to the club if you want to come back.',
  } as Record<string, string>)[status] ?? 'You cannot order for now: talk to the club.'} You can still write here, or ask for a person by typing "person".`,
  addRefused: (refusal, grams, units) => {
    const when = ({ day: 'today', month: 'this month', year: 'this year' })[refusal.period]
    const limit = `your ${({ day: 'daily', month: 'monthly', year: 'yearly' })[refusal.period]} limit`
    return units === 0 || refusal.remaining <= 0
      ? `That quantity is over ${limit}: you cannot add more ${when}. Your cart is as it was.`
      : `That quantity is over ${limit}: you can add up to ${grams} g more ${when}${units === undefined
        ? ''
        : ` (${units} ${units === 1 ? 'unit' : 'units'})`}.`
  },
  orderRefused: (refusal, grams) => refusal.kind === 'limit'
    ? refusal.remaining > 0
      ? `This order is over your ${({ day: 'daily', month: 'monthly', year: 'yearly' })[refusal.period]} limit: ${grams(refusal.remaining)} g left ${({
        day: 'today', month: 'this month', year: 'this year'
      })[refusal.period]}. Lower the quantity in "Edit cart" and confirm again.`
      : `You have reached your ${({ day: 'daily', month: 'monthly', year: 'yearly' })[refusal.period]} limit: no grams left ${({
        day: 'today', month: 'this month', year: 'this year'
      })[refusal.period]}. Your cart is still saved.`
    : ({
        registration: 'Your registration has expired: renew it and tell the club to order again.',
        minAge: 'The club does not dispense below its minimum age.',
        minMembershipDays: 'You have not yet been a member for the days the club asks before a first dispensation.',
        allowanceRequired: 'The club needs your signed consumption forecast before dispensing: talk to the club.',
        thcCeiling: 'A product in your cart is above the THC allowed at your age: remove it in "Edit cart".',
      } as Record<string, string>)[refusal.reason] ?? 'You cannot order for now: talk to the club.',
  timeout: 'It has been a while, so we went back to the menu. Your cart is kept.',
  sessionExpired: 'Your session has expired. Please log in again.',
  unlinked: (club) => `Done: this phone is no longer linked to ${club}.`,
  media: {
    audio: 'I can\'t listen to audio. Type what you need or pick an option from the menu.',
    image: 'I can\'t see images. Tell me in writing what you need; if someone at the club has to see it, ask to talk to a person.',
    video: 'I can\'t watch videos. Tell me in writing what you need; if someone at the club has to see it, ask to talk to a person.',
    document: 'I can\'t open documents. Tell me in writing what you need; if someone at the club has to see it, ask to talk to a person.',
    contacts: 'I can\'t read contact cards. Type what you need or pick an option from the menu.',
    location: 'Thanks for the location, but I don\'t use it: orders are picked up at the club.',
    sticker: 'Nice sticker! 😄',
    reaction: '👍 Got it!',
    other: 'For now I only understand text and the menu buttons.',
  },
  hint: 'I did not get that.',
  help: {
    UNLINKED: 'To start, link your club account: tap "Log in" to sign in with your email and password, ' +
      'or "I have a code" if you already have the code from the club\'s website.',
    AWAITING_LINK_CODE: 'Paste the code you see on the club\'s website after logging in (it looks like LINK-1234abcd-…). Type "cancel" to go back.',
    AWAITING_TENANT_SELECTION: 'Pick a club from the list, reply with its number or type its name. "menu" goes back to the current club\'s menu.',
    MAIN_MENU: 'Pick an option or reply with its number. You can also type what you are looking for ("gelato", "2 amnesia"), "cart", ' +
      '"repeat" to repeat your last order, or "Español".',
    BROWSING_PRODUCTS: 'Pick a product or reply with its number, or type what you are looking for ("2 gelato 5g"). "menu" goes back to the menu.',
    AWAITING_QUANTITY: 'Reply how many you want, as a number or a word ("2" or "two"). "cancel" goes back to the menu.',
    VIEWING_CART: 'Check out, edit your cart to change quantities or remove products, or keep shopping. "menu" goes back to the menu; your cart is kept.',
    CONFIRMING_ORDER: 'Tap "Confirm" (or type "yes") to place the order, or "Back" to change your cart. Pickup at the club, cash payment.',
  },
  reportFailed: 'We could not fetch that right now. Please try again in a moment.',
  orders: (lines, club) => lines.length === 0
    ? (club ? 'The club has no orders yet.' : 'You have no orders yet.')
    : `${club ? 'The club\'s latest orders' : 'Your latest orders'}:\n${lines.join('\n')}`,
  orderLine: (id, status, total) => `#${id} · ${status} · ${total}`,
  notifications: (unread, lines) => `You have ${unread} unread notification(s).${lines.length ? `\n${lines.join('\n')}` : ''}`,
  crops: (groups) =>
    groups.length === 0 ? 'There are no crops.' : `Crops by status:\n${groups.map((g) => `${g.status} (${g.names.length}): ${g.names.join(', ')}`).join('\n')}`,
  statusNames: {
    pending: 'pending',
    requires_action: 'needs attention',
    completed: 'completed',
    canceled: 'cancelled',
    IDEATING: 'Planning',
    PROPAGATING: 'Propagating',
    VEGETATING: 'Vegetative',
    FLOWERING: 'Flowering',
    HARVESTING: 'Harvesting',
    DRYING: 'Drying',
    MANICURING: 'Manicuring',
    CURING: 'Curing',
    FINISHED: 'Finished',
  },
  handoff: {
    requested: (club, hours) =>
      `Done, ${club} has been told. A person from the club will answer you here${hours
        ? ` (hours: ${hours})`
        : ' as soon as they can'}. Until then the bot stays quiet.`,
    back: 'You are talking to the bot again. Type "menu" to see the options.',
    timedOut: 'Sorry, nobody from the club could answer in time. The bot is back; you can ask for a person again whenever you like.',
  },
}

export const COPY: Record<Locale, Copy> = { es, en }

/** Amounts kept written per currency and language, each about 60 bytes: a club's prices and totals, which every list and cart repeats. */
const AMOUNTS_KEPT = 2_000

/** A currency's format and the amounts it has written. */
interface MoneyFormat { format: Intl.NumberFormat, written: Map<number, string> }

const formats = new Map<string, MoneyFormat>()

/**
 * Money in the club's currency, written the club's way (es-AR, en). Amounts are whole currency units. Each amount is
 * written by Intl once and kept: ICU's formatting costs a product list 5 to 30 µs a turn in the service (its tables
 * are cold by the time a turn reaches them), a kept amount a map read. Zero goes to Intl every time: a Map holds 0 and
 * -0 as one key, and Intl writes them apart.
 */
export function money (amount: number, currency: string, locale: Locale): string {
  const key = `${locale}:${currency}`
  let kept = formats.get(key)
  if (!kept) {
    kept = { format: new Intl.NumberFormat(locale === 'es' ? 'es-AR' : 'en', { style: 'currency', currency }), written: new Map() }
    formats.set(key, kept)
  }
  if (amount === 0) return kept.format.format(amount)
  let text = kept.written.get(amount)
  if (text === undefined) {
    text = kept.format.format(amount)
    // past the limit the kept amounts start again: a club with more prices than that pays Intl as before
    if (kept.written.size >= AMOUNTS_KEPT) kept.written.clear()
    kept.written.set(amount, text)
  }
  return text
}

const gramFormats = new Map<Locale, Intl.NumberFormat>()

/** Grams as the member reads them: at most three decimals, the locale's decimal sign. */
export function gramsText (grams: number, locale: Locale): string {
  let format = gramFormats.get(locale)
  if (!format) gramFormats.set(locale, format = new Intl.NumberFormat(locale === 'es' ? 'es-AR' : 'en', { maximumFractionDigits: 3 }))
  return format.format(grams)
}
