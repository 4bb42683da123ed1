import { rawDeflate } from '../raw-deflate.ts'
import type { HistoryMessage } from '../store/port.ts'

// How the conversation history is stored. One list entry holds what was recorded at once (a turn: the member's
// message and the bot's replies; or what staff or the system said), oldest first. Version 3: a version byte,
// the first message's time (8 bytes, a double), its id in binary (below), then the raw DEFLATE of a positional
// JSON array with a preset dictionary of the bot's usual words. The other ids are stored relative to the first
// (`<id>:<n>` as n), times relative to the first time. The first id and time are outside the DEFLATE because
// they are random: a short DEFLATE stream codes each of their characters in about a byte, so a provider id
// of 40 characters (a UUID or base64 after 'wamid.') costs about 40 bytes there and 17 to 30 as binary. A
// turn is then about 50 to 150 bytes instead of about 2,500 as one JSON object per message. Still read:
// version 2 (the same with the first id and time inside the JSON) and version 1 (one JSON message per entry,
// starting with '{').

const VERSION = 3
const V2 = 2

// Frozen with VERSION: entries are inflated with the dictionary they were deflated with, so a change here needs
// a new version byte (and this one kept for the entries already stored). Most-used words last (nearest).
const DICTIONARY = Buffer.from([
  'Hi! To use the bot, link your club account: log in right here or send the code you see on the club\'s website.',
  '¡Hola! Para usar el bot vinculá tu cuenta del club: iniciá sesión acá mismo o enviá el código que ves en la web del club.',
  '[Browse products | My cart | Repeat last order | My orders | Notifications | Crops | Switch club | Talk to a person | Español | Turn updates off | Turn ' +
    'updates on | Unlink]',
  ': what would you like to do?\n[Browse products | My cart | Repeat last order | My orders | Notifications | Turn updates off | Talk to a person | Español ' +
    '| Unlink]',
  'Products 1-5 of 5. Pick one:\n',
  '[Check out | Keep shopping | Edit cart | See all | Confirm | Back]',
  'Your cart:\n2 × ',
  'Total: $ ',
  'Review your order:\nPickup at the club, cash payment.\nPick up at ',
  ' each, 5 in stock. How many would you like? Reply with a number from 1 to ',
  'Added: 2 × ',
  'Done! Order #21 placed ($ 13.000,00). We will let you know when it is ready for pickup.',
  'Hi ! Your account is linked.',
  '[Ver productos | Mi carrito | Repetir último pedido | Mis pedidos | Notificaciones | Cultivos | Cambiar de club | Hablar con una persona | English | ' +
    'Apagar avisos | Encender avisos | Desvincular]',
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
  ': ¿qué querés hacer?\n[Ver productos | Mi carrito | Repetir último pedido | Mis pedidos | Notificaciones | Apagar avisos | Hablar con una persona | ' +
    'English | Desvincular]',
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

// The first id in binary: a kind byte, then 16 bytes for 'wamid.' and a lowercase UUID; a length byte and the
// bytes for 'wamid.' and standard base64 that encodes them back exactly (the provider's usual ids); else two
// length bytes and the id's UTF-8.
const WAMID = 'wamid.'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const enum IdKind { Text = 0, Uuid = 1, Base64 = 2 }

function idBytes (id: string): Buffer {
  const rest = id.startsWith(WAMID) ? id.slice(WAMID.length) : undefined
  if (rest !== undefined && UUID.test(rest)) return Buffer.concat([Buffer.of(IdKind.Uuid), Buffer.from(rest.replaceAll('-', ''), 'hex')])
  const bytes = rest === undefined ? undefined : Buffer.from(rest, 'base64')
  if (bytes && bytes.length > 0 && bytes.length < 256 && bytes.toString(
    'base64'
  ) === rest) return Buffer.concat([Buffer.of(IdKind.Base64, bytes.length), bytes])
  const text = Buffer.from(id, 'utf8')
  const length = Buffer.alloc(2)
  length.writeUInt16BE(text.length)
  return Buffer.concat([Buffer.of(IdKind.Text), length, text])
}

/** The id at `at` and where the bytes after it start. */
function readId (entry: Buffer, at: number): [id: string, next: number] {
  switch (entry[at]) {
    case IdKind.Uuid: {
      const hex = entry.toString('hex', at + 1, at + 17)
      return [`${WAMID}${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`, at + 17]
    }
    case IdKind.Base64: {
      const end = at + 2 + (entry[at + 1] as number)
      return [`${WAMID}${entry.toString('base64', at + 2, end)}`, end]
    }
    default: {
      const end = at + 3 + entry.readUInt16BE(at + 1)
      return [entry.toString('utf8', at + 3, end), end]
    }
  }
}

/** Kept engines (src/chat/raw-deflate.ts): each entry written by a turn costs Node no stream of its own. */
const codec = rawDeflate({ dictionary: DICTIONARY }, { dictionary: DICTIONARY }, '[["in","text","hola",0,0],["out","text","¡Hola! Para usar el bot",1,0]]')

/** One entry for messages recorded together (oldest first; at least one). */
export function encodeHistory (messages: readonly HistoryMessage[]): Buffer {
  const first = messages[0] as HistoryMessage
  const root = rootOf(first.id)
  const at = Buffer.alloc(8)
  at.writeDoubleBE(first.at)
  const json = JSON.stringify(messages.map((m) => pack(m, root, first.at)))
  return Buffer.concat([Buffer.of(VERSION), at, idBytes(root), codec.deflate(Buffer.from(json))])
}

const inflated = (bytes: Buffer): unknown => JSON.parse(codec.inflate(bytes).toString('utf8'))

/** An entry's messages, newest first. */
export function decodeHistory (entry: Buffer): HistoryMessage[] {
  if (entry[0] === VERSION) {
    const at = entry.readDoubleBE(1)
    const [root, next] = readId(entry, 9)
    return (inflated(entry.subarray(next)) as Packed[]).map((p) => unpack(p, root, at)).reverse()
  }
  if (entry[0] === V2) {
    const [root, at, packed] = inflated(entry.subarray(1)) as [string, number, Packed[]]
    return packed.map((p) => unpack(p, root, at)).reverse()
  }
  return [JSON.parse(entry.toString('utf8')) as HistoryMessage]
}
