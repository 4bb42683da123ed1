import { deflateRawSync, inflateRawSync } from 'node:zlib'
import type { HistoryMessage } from './store.ts'

// How the conversation history is stored. One list entry holds what was recorded at once (a turn: the member's
// message and the bot's replies; or what staff or the system said), oldest first: a version byte, then the raw
// DEFLATE of a positional JSON array with a preset dictionary of the bot's usual words. The replies' ids are
// stored relative to the first id (`<id>:<n>` as n), times relative to the first time. A turn of ten
// messages is then about 60 to 120 bytes instead of about 2,500 as one JSON object per message (version 1,
// still read: an entry that starts with '{').

const VERSION = 2

// Frozen with VERSION: entries are inflated with the dictionary they were deflated with, so a change here needs
// a new version byte (and this one kept for the entries already stored). Most-used words last (nearest).
const DICTIONARY = Buffer.from([
  'Hi! To use the bot, link your club account: log in right here or send the code you see on the club\'s website.',
  '¡Hola! Para usar el bot vinculá tu cuenta del club: iniciá sesión acá mismo o enviá el código que ves en la web del club.',
  '[Browse products | My cart | Repeat last order | My orders | Notifications | Crops | Switch club | Talk to a person | Español | Turn updates off | Turn updates on | Unlink]',
  ': what would you like to do?\n[Browse products | My cart | Repeat last order | My orders | Notifications | Turn updates off | Talk to a person | Español | Unlink]',
  'Products 1-5 of 5. Pick one:\n',
  '[Check out | Keep shopping | Edit cart | See all | Confirm | Back]',
  'Your cart:\n2 × ',
  'Total: $ ',
  'Review your order:\nPickup at the club, cash payment.\nPick up at ',
  ' each, 5 in stock. How many would you like? Reply with a number from 1 to ',
  'Added: 2 × ',
  'Done! Order #21 placed ($ 13.000,00). We will let you know when it is ready for pickup.',
  'Hi ! Your account is linked.',
  '[Ver productos | Mi carrito | Repetir último pedido | Mis pedidos | Notificaciones | Cultivos | Cambiar de club | Hablar con una persona | English | Apagar avisos | Encender avisos | Desvincular]',
  'Productos 1-5 de 5. Elegí uno:\n',
  '[Confirmar pedido | Editar carrito | Seguir comprando | Ver todo]',
  'Tu carrito:\n2 × ',
  ': $ 13.000,00\nTotal: $ ',
  'Revisá tu pedido:\nRetiro en el club, pago en efectivo.\nRetirás en Av. Cabildo 1200, Buenos Aires (Lunes a viernes de 14 a 20).\n[Confirmar | Volver]',
  ' c/u, stock 99. ¿Cuántas unidades querés? Respondé un número del 1 al ',
  'Agregado: 2 × ',
  '¡Listo! Pedido #21 realizado ($ 13.000,00). Te avisamos cuando esté para retirar.',
  '¡Hola, ! Tu cuenta quedó vinculada.',
  '"interactive","menu:browse","menu:cart","cart:checkout","order:confirm","product:prod_',
  ': ¿qué querés hacer?\n[Ver productos | Mi carrito | Repetir último pedido | Mis pedidos | Notificaciones | Apagar avisos | Hablar con una persona | English | Desvincular]',
  // the packed array's own skeleton (a provider's ids start with "wamid.")
  '",0,[["",0,"<member","text","hola"],[0,0,">bot","text","¡Hola, ',
  '["wamid.',
  ',[["",0,"<member","interactive","menu:cart","menu:cart"],[0,12,">bot","interactive","',
].join(''))

type Packed = [id: string | number, dt: number, who: string, type: string, text: string, choice?: string]

const rootOf = (id: string): string => id.replace(/:\d+$/, '')

function pack (m: HistoryMessage, root: string, at: number): Packed {
  const suffix = m.id.startsWith(`${root}:`) ? m.id.slice(root.length + 1) : undefined
  const id = m.id === root ? '' : suffix !== undefined && /^\d{1,6}$/.test(suffix) && String(Number(suffix)) === suffix ? Number(suffix) : m.id
  const packed: Packed = [id, m.at - at, `${m.direction === 'in' ? '<' : '>'}${m.author}`, m.type, m.text]
  if (m.choice !== undefined) packed.push(m.choice)
  return packed
}

function unpack ([id, dt, who, type, text, choice]: Packed, root: string, at: number): HistoryMessage {
  const m: HistoryMessage = {
    id: id === '' ? root : typeof id === 'number' ? `${root}:${id}` : id,
    at: at + dt,
    direction: who.startsWith('<') ? 'in' : 'out',
    author: who.slice(1) as HistoryMessage['author'],
    type,
    text,
  }
  if (choice !== undefined) m.choice = choice
  return m
}

/** One entry for messages recorded together (oldest first; at least one). */
export function encodeHistory (messages: readonly HistoryMessage[]): Buffer {
  const first = messages[0] as HistoryMessage
  const root = rootOf(first.id)
  const json = JSON.stringify([root, first.at, messages.map((m) => pack(m, root, first.at))])
  return Buffer.concat([Buffer.of(VERSION), deflateRawSync(json, { dictionary: DICTIONARY })])
}

/** An entry's messages, newest first. */
export function decodeHistory (entry: Buffer): HistoryMessage[] {
  if (entry[0] !== VERSION) return [JSON.parse(entry.toString('utf8')) as HistoryMessage]
  const [root, at, packed] = JSON.parse(inflateRawSync(entry.subarray(1), { dictionary: DICTIONARY }).toString('utf8')) as [string, number, Packed[]]
  return packed.map((p) => unpack(p, root, at)).reverse()
}
