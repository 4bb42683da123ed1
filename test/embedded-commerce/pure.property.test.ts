import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseFields, project } from '../../src/embedded-commerce/fields.ts'
import { fulfillmentStatus, paymentStatus } from '../../src/embedded-commerce/calc.ts'
import { mergeDeltas, type StockDelta } from '../../src/embedded-commerce/store/port.ts'
import type { Fulfillment, OrderLineItem, PaymentCollection } from '../../src/embedded-commerce/model.ts'

const answer = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(fc.integer(), fc.string(), fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.integer()))
)

describe('fields parser (outside input)', () => {
  it('never throws and never invents keys', () => {
    fc.assert(fc.property(fc.string(), answer, (raw, value) => {
      const out = project(value, parseFields(raw)) as Record<string, unknown>
      expect(Object.keys(out).every((k) => k in value)).toBe(true)
    }))
  })

  it('plain fields select exactly those keys (plus id); + and * keep the default answer', () => {
    fc.assert(fc.property(answer, fc.array(fc.stringMatching(/^[a-z_]{1,6}$/), { maxLength: 4 }), (value, picked) => {
      const withId = { ...value, id: 'x' }
      const selected = project(withId, parseFields(picked.join(','))) as Record<string, unknown>
      const expected = picked.length === 0 ? Object.keys(withId) : Object.keys(withId).filter((k) => k === 'id' || picked.includes(k))
      expect(Object.keys(selected).sort()).toEqual(expected.sort())
      expect(project(withId, parseFields(picked.map((p) => `+${p}`).concat('*items').join(',')))).toEqual(withId)
    }))
  })

  it('selects inside relations', () => {
    const order = { id: 'o', status: 'pending', items: [{ id: 'i', quantity: 2, title: 't' }], fulfillments: [{ id: 'f' }] }
    expect(project(order, parseFields('status,items.quantity,*fulfillments'))).toEqual({
      id: 'o', status: 'pending', items: [{ id: 'i', quantity: 2 }], fulfillments: [{ id: 'f' }]
    })
    expect(project(order, parseFields('-items'))).toEqual({ id: 'o', status: 'pending', fulfillments: [{ id: 'f' }] })
  })
})

const line = (quantity: number, fulfilled: number): OrderLineItem => ({
  id: 'ordli',
  variant_id: 'v',
  product_id: 'p',
  inventory_item_id: null,
  title: 't',
  subtitle: null,
  thumbnail: null,
  quantity,
  unit_price: 10,
  product_title: 't',
  product_description: null,
  product_subtitle: null,
  product_handle: 'h',
  variant_sku: null,
  variant_title: 'v',
  requires_shipping: true,
  metadata: {},
  created_at: '',
  updated_at: '',
  fulfilled_quantity: fulfilled,
  shipped_quantity: 0,
  delivered_quantity: 0,
})

type Step = 'packed' | 'shipped' | 'delivered' | 'canceled'
const RANK = { packed: 1, shipped: 2, delivered: 3 } as const
const NAME = { packed: 'fulfilled', shipped: 'shipped', delivered: 'delivered' } as const

const fulfillment = (itemId: string, step: Step): Fulfillment => ({
  id: 'ful',
  location_id: 'sloc',
  shipping_option_id: null,
  packed_at: 'p',
  shipped_at: step === 'shipped' || step === 'delivered' ? 's' : null,
  delivered_at: step === 'delivered' ? 'd' : null,
  canceled_at: step === 'canceled' ? 'c' : null,
  created_by: null,
  marked_shipped_by: null,
  delivery_address_id: 'a',
  items: [{ id: 'fulit', line_item_id: itemId, inventory_item_id: null, title: 't', sku: null, quantity: 1, created_at: '' }],
  labels: [],
  created_at: '',
  updated_at: '',
})

// An order as the order services keep it: each fulfillment packs one unit of a line; a line's fulfilled
// quantity counts its live (uncanceled) fulfillments and never exceeds what was ordered.
const order = fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }).chain((quantities) =>
  fc.array(fc.record({ item: fc.nat({ max: quantities.length - 1 }), step: fc.constantFrom<Step>('packed', 'shipped', 'delivered', 'canceled') }), {
    maxLength: 6
  })
    .map((wanted) => {
      const packed = quantities.map(() => 0)
      const kept = wanted.filter(({ item, step }) => step === 'canceled' || (packed[item] = (packed[item] ?? 0) + 1) <= (quantities[item] ?? 0))
      const live = quantities.map((_, i) => kept.filter((f) => f.item === i && f.step !== 'canceled').length)
      return {
        items: quantities.map((q, i) => ({ ...line(q, live[i] ?? 0), id: `ordli_${i}` })),
        fulfillments: kept.map((f) => fulfillment(`ordli_${f.item}`, f.step)),
        steps: kept.map((f) => f.step),
      }
    }))

describe('order statuses computed on read', () => {
  it('fulfillment_status, as Medusa: the furthest step of a live fulfillment, whole when all reached it and every unit is packed', () => {
    fc.assert(fc.property(order, ({ items, fulfillments, steps }) => {
      const live = steps.filter((s): s is Exclude<Step, 'canceled'> => s !== 'canceled')
      let expected: string
      if (live.length === 0) expected = steps.length > 0 ? 'canceled' : 'not_fulfilled'
      else {
        const top = live.reduce((a, b) => RANK[b] > RANK[a] ? b : a)
        const whole = live.every((s) => s === top) && items.every((i) => i.fulfilled_quantity === i.quantity)
        expected = whole ? NAME[top] : `partially_${NAME[top]}`
      }
      expect(fulfillmentStatus({ items, fulfillments })).toBe(expected)
    }))
  })

  it('payment_status follows authorized, captured and refunded amounts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 1000 }), fc.boolean(), (
        amount, rawCaptured, rawRefund, canceled
      ) => {
        const captured = Math.min(rawCaptured, amount)
        const refunded = Math.min(rawRefund, captured)
        const pc: PaymentCollection = {
          id: 'pc',
          currency_code: 'ars',
          amount,
          completed_at: null,
          payment_sessions: [],
          metadata: null,
          created_at: '',
          updated_at: '',
          payments: [{
            id: 'p',
            provider_id: 'pp',
            currency_code: 'ars',
            amount,
            payment_session_id: 's',
            captured_at: null,
            canceled_at: canceled && captured === 0 ? 'now' : null,
            captures: captured ? [{ id: 'c', amount: captured, created_by: null, created_at: '' }] : [],
            refunds: refunded ? [{ id: 'r', amount: refunded, created_by: null, created_at: '' }] : [],
            created_at: '',
            updated_at: '',
          }],
        }
        const result = paymentStatus({ status: canceled ? 'canceled' : 'pending', payment_collections: [pc] })
        if (refunded > 0) expect(result).toBe(refunded >= captured ? 'refunded' : 'partially_refunded')
        else if (canceled && captured === 0) expect(result).toBe('canceled')
        else if (captured > 0) expect(result).toBe(captured >= amount ? 'captured' : 'partially_captured')
        else expect(result).toBe('authorized')
      })
    )
  })
})

describe('stock deltas', () => {
  it('merging keeps every level\'s total change', () => {
    const delta = fc.record({
      inventoryItemId: fc.constantFrom('a', 'b'),
      locationId: fc.constantFrom('x', 'y'),
      stocked: fc.integer({ min: -5, max: 5 }),
      reserved: fc.integer({ min: -5, max: 5 })
    })
    fc.assert(fc.property(fc.array(delta), (deltas) => {
      const merged = mergeDeltas(deltas)
      for (const item of ['a', 'b']) {
        for (const loc of ['x', 'y']) {
          const mine = (d: StockDelta): boolean => d.inventoryItemId === item && d.locationId === loc
          const total = (xs: StockDelta[], f: 'stocked' | 'reserved'): number => xs.filter(mine).reduce((s, d) => s + d[f], 0)
          expect(total(merged, 'stocked')).toBe(total(deltas, 'stocked'))
          expect(total(merged, 'reserved')).toBe(total(deltas, 'reserved'))
          expect(merged.filter(mine).length).toBeLessThanOrEqual(1)
        }
      }
    }))
  })
})
