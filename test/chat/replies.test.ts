import { describe, expect, it } from 'vitest'
import type { CartItem, Product } from '../../machines/conversation.types.ts'
import { outboundMessage, type OutboundMessage } from '../../src/chat/outbound/messages.ts'
import { compose } from '../../src/chat/replies/compose.ts'

// Replies that keep what matters within the provider's limits: long carts, long names, untracked stock, paging.

const voices = [{ locale: 'es', currency: 'ARS' }, { locale: 'en', currency: 'ARS' }] as const
const line = (i: number): CartItem => ({
  variantId: `v${i}`,
  productId: `p${i}`,
  title: `Producto de prueba con un nombre muy largo número ${i} (presentación de 10 g)`,
  quantity: 2,
  unitPrice: 123_456
})
const cart16 = Array.from({ length: 16 }, (_, i) => line(i + 1))

const bodyOf = (m: OutboundMessage) => m.type === 'text' ? m.text.body : m.type === 'interactive' ? m.interactive.body.text : m.template.name
const ids = (m: OutboundMessage) => m.type === 'interactive' && m.interactive.type === 'button'
  ? m.interactive.action.buttons.map((b) => b.reply.id)
  : m.type === 'interactive' && m.interactive.type === 'list' ? m.interactive.action.sections.flatMap((s) => s.rows.map((r) => r.id)) : []
const titles = (m: OutboundMessage) =>
  m.type === 'interactive' && m.interactive.type === 'list' ? m.interactive.action.sections.flatMap((s) => s.rows.map((r) => r.title)) : []

describe('reply composer', () => {
  it.each(voices)('a 16-line summary keeps its total, pickup/payment line and confirm buttons, shows 8 lines and "and 8 more" ($locale)', (voice) => {
    const [summary] = compose({ id: 'summary', items: cart16 }, voice)
    expect(outboundMessage.parse(summary)).toBeTruthy()
    const body = bodyOf(summary!)
    expect(body).toMatch(voice.locale === 'es' ? /Total: \$\s?3\.950\.592,00/ : /Total: ARS\s?3,950,592\.00/)
    expect(body).toMatch(voice.locale === 'es' ? /Retiro en el club, pago en efectivo\.$/ : /Pickup at the club, cash payment\.$/)
    expect(body).toMatch(voice.locale === 'es' ? /… y 8 más/ : /… and 8 more/)
    expect(ids(summary!)).toEqual(['order:confirm', 'order:cancel', 'cart:all'])
    const [all] = compose({ id: 'cartAll', items: cart16 }, voice)
    expect(outboundMessage.parse(all)).toBeTruthy()
    expect(bodyOf(all!).split('\n').filter((l) => l.startsWith('2 ×'))).toHaveLength(16)
  })

  it('a long cart view offers "see all" besides checkout, edit and keep shopping', () => {
    const [cart] = compose({ id: 'cart', items: cart16 }, voices[0])
    expect(ids(cart!)).toEqual(['cart:checkout', 'cart:edit', 'cart:browse', 'cart:all'])
    expect(bodyOf(cart!)).toMatch(/Total:/)
  })

  it('list rows stay distinguishable when names are long: never two identical titles, variant and price in the description', () => {
    const products: Product[] = Array.from({ length: 9 }, (_, i) => ({
      id: `p${i}`, title: 'Producto de prueba con nombre largo', variants: [{ id: `v${i}`, title: `${i + 1}0 g`, price: 100 * (i + 1), stock: 5 }]
    }))
    const [page] = compose({ id: 'products', products, offset: 0, count: 9 }, voices[0])
    expect(outboundMessage.parse(page)).toBeTruthy()
    const shown = titles(page!)
    expect(new Set(shown).size).toBe(shown.length)
    const rows = page!.type === 'interactive' && page!.interactive.type === 'list' ? page!.interactive.action.sections[0]!.rows : []
    expect(rows[0]?.description).toMatch(/^10 g · \$\s?100,00 · stock 5$/)
    const [edit] = compose({ id: 'editCart', items: cart16 }, voices[0])
    expect(new Set(titles(edit!)).size).toBe(titles(edit!).length)
  })

  it('a variant whose stock is not tracked shows its price, no "stock 0"', () => {
    const product: Product = { id: 'p', title: 'Gelato', variants: [{ id: 'v', title: 'Gelato', price: 700, stock: null }] }
    const [page] = compose({ id: 'products', products: [product], offset: 0, count: 1 }, voices[0])
    const rows = page!.type === 'interactive' && page!.interactive.type === 'list' ? page!.interactive.action.sections[0]!.rows : []
    expect(rows[0]?.description).toMatch(/^\$\s?700,00$/)
    const [ask] = compose({ id: 'askQuantity', title: 'Gelato', price: 700, stock: null, max: 99 }, voices[0])
    expect(bodyOf(ask!)).not.toMatch(/stock/)
  })

  it('the last page of products offers the way back to the first', () => {
    const products: Product[] = Array.from({ length: 3 }, (_, i) => ({
      id: `p${i}`, title: `P${i}`, variants: [{ id: `v${i}`, title: 'u', price: 1, stock: 1 }]
    }))
    const [last] = compose({ id: 'products', products, offset: 9, count: 12 }, voices[1])
    expect(ids(last!).at(-1)).toBe('products:first')
    const [first] = compose({ id: 'products', products, offset: 0, count: 12 }, voices[1])
    expect(ids(first!).at(-1)).toBe('products:more')
  })
})
