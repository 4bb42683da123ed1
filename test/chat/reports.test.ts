import { describe, expect, it } from 'vitest'
import { cropsReport, ordersReport } from '../../src/chat/replies/compose.ts'

const body = (message: { type: string, text?: { body: string } }) => message.text?.body ?? ''

describe('reports in the member\'s words', () => {
  const orders = [{ displayId: 7, status: 'pending', total: 64000 }, { displayId: 6, status: 'canceled', total: 1500 }]

  it('names order statuses in Spanish, with money of the club', () => {
    const text = body(ordersReport(orders, { locale: 'es', currency: 'ARS' }))
    expect(text).toMatch(/#7 · pendiente · \$\s64\.000,00/)
    expect(text).toContain('#6 · cancelado')
    expect(text).not.toContain('pending')
  })

  it('and in English', () => {
    expect(body(ordersReport(orders, { locale: 'en', currency: 'ARS' }))).toContain('#6 · cancelled')
  })

  it('titles the club\'s orders as the club\'s when staff ask', () => {
    expect(body(ordersReport(orders, { locale: 'es', currency: 'ARS' }, true))).toMatch(/^Últimos pedidos del club:\n#7/)
    expect(body(ordersReport(orders, { locale: 'en', currency: 'ARS' }, true))).toMatch(/^The club's latest orders:\n#7/)
    expect(body(ordersReport([], { locale: 'en', currency: 'ARS' }, true))).toBe('The club has no orders yet.')
    expect(body(ordersReport(orders, { locale: 'en', currency: 'ARS' }))).toMatch(/^Your latest orders:/)
  })

  it('shows a status it has no words for as it is', () => {
    expect(body(ordersReport([{ displayId: 1, status: 'archived', total: 1 }], { locale: 'es', currency: 'ARS' }))).toContain('· archived ·')
    expect(body(ordersReport([{ displayId: 1, status: 'toString', total: 1 }], { locale: 'es', currency: 'ARS' }))).toContain('· toString ·')
  })

  it('groups crops by their status name', () => {
    const text = body(
      cropsReport([{ name: 'Gelato', status: 'FLOWERING' }, { name: 'Amnesia', status: 'FLOWERING' }, { name: 'Critical', status: 'DRYING' }], {
        locale: 'es', currency: 'ARS'
      })
    )
    expect(text).toContain('Floración (2): Gelato, Amnesia')
    expect(text).toContain('Secado (1): Critical')
  })
})
