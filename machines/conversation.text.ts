import type { Product, Variant } from './conversation.types.ts'

// What a member's typed words mean, in Spanish and English: the control words, quantities as digits or number
// words, clubs by name and products by words. Pure; accent-, case- and punctuation-insensitive, and tolerant of
// one typo in a word of four letters or more (two from eight).

/** Lower case, accents off, punctuation to spaces, "5 g" joined to "5g", spaces collapsed. */
export function normalise (text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .replace(/(\d) (g|gr|mg|ml|kg|cc|u)\b/g, '$1$2')
    .trim()
}

const tokens = (text: string): string[] => normalise(text).split(' ').filter((t) => t !== '')

/** Levenshtein distance, stopping early once it exceeds `max`. */
function distance (a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      const value = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost)
      row.push(value)
      best = Math.min(best, value)
    }
    if (best > max) return max + 1
    prev = row
  }
  return prev[b.length] ?? max + 1
}

const allowedTypos = (word: string): number => word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0

/** The same word, give or take a typo. */
function sameWord (typed: string, known: string): boolean {
  return typed === known || distance(typed, known, allowedTypos(known)) <= allowedTypos(known)
}

export type Word = 'help' | 'menu' | 'cancel' | 'greeting' | 'yes' | 'no' | 'cart' | 'repeat' | 'english' | 'spanish'

const WORDS: Record<Word, readonly string[]> = {
  help: ['ayuda', 'help', 'opciones', 'options', 'como funciona', 'que puedo hacer'],
  menu: ['menu', 'inicio', 'home', 'start', 'menu principal', 'main menu', 'volver al menu'],
  cancel: ['cancelar', 'cancel', 'salir', 'stop', 'exit', 'quit'],
  greeting: [
    'hola', 'buenas', 'buen dia', 'buenos dias', 'buenas tardes', 'buenas noches', 'hello', 'hi', 'hey', 'good morning', 'good afternoon', 'good evening', 'ola'
  ],
  yes: ['si', 'yes', 'ok', 'dale', 'confirmar', 'confirmo', 'confirm', 'sure', 'vale', 'de acuerdo'],
  no: ['no', 'nope', 'volver', 'back', 'atras', 'no gracias', 'no thanks'],
  cart: ['carrito', 'cart', 'mi carrito', 'my cart', 'ver carrito', 'view cart'],
  repeat: [
    'repetir', 'repeat', 'repetir pedido', 'repetir mi ultimo pedido', 'repetir ultimo pedido', 'repeat order', 'repeat my last order', 'repeat last order',
    'lo mismo', 'lo mismo de siempre', 'same again'
  ],
  english: ['english', 'ingles', 'en english', 'in english'],
  spanish: ['espanol', 'spanish', 'castellano', 'en espanol', 'in spanish'],
}

/** Each spelling split into its words once, grouped by how many words it has: only those as long as the message are compared. */
const PHRASES: ReadonlyMap<number, ReadonlyArray<readonly [Word, string[]]>> = (() => {
  const byLength = new Map<number, Array<readonly [Word, string[]]>>()
  for (const [word, spellings] of Object.entries(WORDS) as Array<[Word, readonly string[]]>) {
    for (const spelling of spellings) {
      const words = spelling.split(' ')
      byLength.set(words.length, [...byLength.get(words.length) ?? [], [word, words] as const])
    }
  }
  return byLength
})()

function samePhrase (typed: string[], known: readonly string[]): boolean {
  return known.every((w, i) => sameWord(typed[i] ?? '', w))
}

/** The control word a whole message is, if any. A one- or two-letter message must match exactly. */
export function wordOf (text: string): Word | undefined {
  // a turn's guards ask about the same message several times: the last answer is kept
  if (text !== lastWord.text) lastWord = { text, word: findWord(text) }
  return lastWord.word
}

let lastWord: { text: string, word: Word | undefined } = { text: '', word: undefined }

function findWord (text: string): Word | undefined {
  const typed = tokens(text)
  if (typed.length === 0) return undefined
  const phrases = PHRASES.get(typed.length) ?? []
  for (const [word, known] of phrases) {
    if (known.every((w, i) => w === typed[i])) return word
  }
  for (const [word, known] of phrases) {
    if (samePhrase(typed, known)) return word
  }
  return undefined
}

const NUMBER_WORDS: Record<string, number> = Object.fromEntries([
  ['cero', 'zero'], ['uno', 'one', 'una', 'un'], ['dos', 'two'], ['tres', 'three'], ['cuatro', 'four'], ['cinco', 'five'],
  ['seis', 'six'], ['siete', 'seven'], ['ocho', 'eight'], ['nueve', 'nine'], ['diez', 'ten'], ['once', 'eleven'],
  ['doce', 'twelve'], ['trece', 'thirteen'], ['catorce', 'fourteen'], ['quince', 'fifteen'], ['dieciseis', 'sixteen'],
  ['diecisiete', 'seventeen'], ['dieciocho', 'eighteen'], ['diecinueve', 'nineteen'], ['veinte', 'twenty'],
].flatMap((spellings, n) => spellings.map((s) => [s, n] as const)))

/** A number as one token: digits, or a number word from zero to twenty in either language. */
function numberToken (token: string): number | undefined {
  if (/^\d{1,4}$/.test(token)) return Number(token)
  return NUMBER_WORDS[token]
}

// Words around a quantity or a product's name that carry no meaning of their own.
const FILLER = new Set([
  'quiero', 'queria', 'dame', 'deme', 'agregar', 'agrega', 'agregame', 'sumar', 'pedir', 'comprar', 'busco', 'buscar', 'me', 'das',
  'por', 'favor', 'porfa', 'de', 'del', 'la', 'el', 'los', 'las', 'unidades', 'unidad', 'x', 'quisiera', 'tenes', 'hay',
  'a', 'an', 'i', 'want', 'would', 'like', 'd', 'please', 'add', 'get', 'buy', 'some', 'of', 'the', 'units', 'unit', 'pcs', 'do', 'you', 'have',
])

/** "quiero 2 amnesia" → quantity 2 and the words "amnesia"; "dos" → quantity 2 and no words. */
export function orderWords (text: string): { quantity?: number, words: string[] } {
  let quantity: number | undefined
  const words: string[] = []
  for (const token of tokens(text)) {
    const n = numberToken(token)
    if (n !== undefined && quantity === undefined) {
      quantity = n
      continue
    }
    if (!FILLER.has(token)) words.push(token)
  }
  return quantity === undefined ? { words } : { quantity, words }
}

/** A message that is only a quantity ("2", "dos", "2 unidades", "one"). */
export function quantityOf (text: string): number | undefined {
  const { quantity, words } = orderWords(text)
  return words.length === 0 ? quantity : undefined
}

/** The one item whose name the text names: exactly, or as the only one starting with it at a word. */
export function byName<T> (text: string, items: readonly T[], nameOf: (item: T) => string): T | undefined {
  const typed = normalise(text)
  if (typed.length < 2) return undefined
  const exact = items.filter((i) => normalise(nameOf(i)) === typed)
  if (exact.length === 1) return exact[0]
  const prefixed = items.filter((i) => {
    const name = normalise(nameOf(i))
    return name.startsWith(typed) || name.includes(` ${typed}`)
  })
  return prefixed.length === 1 ? prefixed[0] : undefined
}

export interface ProductMatch {
  product: Product
  /** The variant the words named, when they named one. */
  variant?: Variant
}

function wordMatches (typed: string, name: string[]): boolean {
  return name.some((w) => w === typed || (typed.length >= 3 && w.startsWith(typed)) || sameWord(typed, w))
}

/**
 * The products (and variants) every word names, over product titles and variant titles. When one product's
 * title is exactly the words, it alone is the match. A variant is picked when its title holds a word the
 * product's title does not.
 */
export function matchProducts (words: readonly string[], catalog: readonly Product[]): ProductMatch[] {
  if (words.length === 0) return []
  const typed = words.join(' ')
  const exact = catalog.filter((p) => normalise(p.title) === typed)
  if (exact.length === 1 && exact[0]) return [{ product: exact[0] }]
  const matches: ProductMatch[] = []
  for (const product of catalog) {
    const title = tokens(product.title)
    const variants = product.variants.filter((v) => {
      const name = [...title, ...tokens(v.title)]
      return words.every((w) => wordMatches(w, name))
    })
    if (variants.length === 0) continue
    const named = variants.filter((v) => words.some((w) => !wordMatches(w, title) && wordMatches(w, tokens(v.title))))
    matches.push(named.length === 1 && named[0] ? { product, variant: named[0] } : { product })
  }
  return matches
}
