import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { byName, matchProducts, normalise, orderWords, quantityOf, wordOf } from '../../machines/conversation.text.ts'
import type { Product } from '../../machines/conversation.types.ts'

// What typed words mean: control words in both languages, quantities, clubs by name and products by words.

const catalog: Product[] = [
  { id: 'p1', title: 'Flores Amnesia Haze', variants: [{ id: 'v1a', title: '5 g', price: 1, stock: 3 }, { id: 'v1b', title: '10 g', price: 2, stock: 3 }] },
  { id: 'p2', title: 'Gelato', variants: [{ id: 'v2', title: 'Única', price: 1, stock: null }] },
  { id: 'p3', title: 'Gelato Cake', variants: [{ id: 'v3', title: 'Única', price: 1, stock: 1 }] },
  { id: 'p4', title: 'Aceite CBD 10% 30 ml', variants: [{ id: 'v4', title: 'Única', price: 1, stock: 1 }] },
]

describe('conversation text', () => {
  it('reads the control words in Spanish and English, any case or accent, with a typo', () => {
    expect(['ayuda', 'HELP', 'Ayúda', 'ayda', '¿ayuda?'].map(wordOf)).toEqual(['help', 'help', 'help', 'help', 'help'])
    expect(['menú', 'Menu', 'cancelar', 'cancel', 'Cancelr'].map(wordOf)).toEqual(['menu', 'menu', 'cancel', 'cancel', 'cancel'])
    expect(['hola', 'Buenas tardes', 'hi', 'sí', 'no', 'English', 'español', 'repetir mi último pedido'].map(wordOf))
      .toEqual(['greeting', 'greeting', 'greeting', 'yes', 'no', 'english', 'spanish', 'repeat'])
    // short words must be exact: "ni" is not "no", "hu" is not "hi"
    expect(['ni', 'hu', 'amnesia', '2', ''].map(wordOf)).toEqual([undefined, undefined, undefined, undefined, undefined])
  })

  it('reads quantities as digits or number words up to twenty in both languages', () => {
    expect(['2', 'dos', 'Two', 'veinte', 'twenty', 'diecisiete', '3 unidades', 'una', 'cero'].map(quantityOf)).toEqual([2, 2, 2, 20, 20, 17, 3, 1, 0])
    expect(['muchas', 'dos aceites', '', '🙂'].map(quantityOf)).toEqual([undefined, undefined, undefined, undefined])
    expect(orderWords('quiero 2 amnesia')).toEqual({ quantity: 2, words: ['amnesia'] })
    expect(orderWords('2 gelato 5 g')).toEqual({ quantity: 2, words: ['gelato', '5g'] })
    expect(orderWords('I want three gelato please')).toEqual({ quantity: 3, words: ['gelato'] })
  })

  it('finds clubs by typed name: exact or the only one starting with it at a word, never an ambiguous one', () => {
    const clubs = [{ name: 'Club Norte' }, { name: 'Club Sur' }, { name: 'Club Süreste' }]
    const name = (c: { name: string }) => c.name
    expect(byName('club norte', clubs, name)?.name).toBe('Club Norte')
    expect(byName('NORTE', clubs, name)?.name).toBe('Club Norte')
    expect(byName('club sur', clubs, name)?.name).toBe('Club Sur')
    expect(byName('sur', clubs, name)).toBeUndefined()
    expect(byName('surest', clubs, name)?.name).toBe('Club Süreste')
    expect(byName('club', clubs, name)).toBeUndefined()
  })

  it('finds products by words: typos, accents, variant words, one exact title over longer ones', () => {
    const ids = (words: string[]) => matchProducts(words, catalog).map((m) => [m.product.id, m.variant?.id])
    expect(ids(['amnsia'])).toEqual([['p1', undefined]])
    expect(ids(orderWords('2 amnesia 5g').words)).toEqual([['p1', 'v1a']])
    expect(ids(['gelato'])).toEqual([['p2', undefined]])
    expect(ids(['gel'])).toEqual([['p2', undefined], ['p3', undefined]])
    expect(ids(['aceite', 'cbd'])).toEqual([['p4', undefined]])
    expect(ids(['bicicleta'])).toEqual([])
  })

  it('property: never throws on any text, and a normalised text normalises to itself', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (text) => {
      wordOf(text)
      quantityOf(text)
      matchProducts(orderWords(text).words, catalog)
      expect(normalise(normalise(text))).toBe(normalise(text))
      const n = quantityOf(text)
      if (n !== undefined) expect(Number.isInteger(n) && n >= 0).toBe(true)
    }), { numRuns: 500 })
  })

  it('property: a product title typed with any case and accents finds that product', () => {
    fc.assert(fc.property(fc.constantFrom(...catalog), fc.boolean(), (product, upper) => {
      const typed = upper ? product.title.toUpperCase() : product.title.normalize('NFD').replace(/\p{M}/gu, '')
      expect(matchProducts(orderWords(typed).words, catalog).map((m) => m.product.id)).toContain(product.id)
    }))
  })
})
