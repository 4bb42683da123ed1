import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { quickSession, restoreSession, storedSession } from '../../machines/conversation.session.ts'
import { CONVERSATION_STATES, MACHINE_VERSION } from '../../machines/conversation.types.ts'

// The quick reader of a stored session answers exactly what `storedSession` answers (the same keys, in the same
// order, undefined where zod keeps undefined), or leaves the record to the schemas.

/** A value with its keys' order made part of it (toStrictEqual alone does not compare the order). */
const ordered = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(ordered)
  if (typeof v === 'object' && v !== null) return Object.entries(v).map(([k, x]) => [k, ordered(x)])
  return v
}
/** Mostly a good value, at times a bad one, now and then anything (kept to what JSON can hold, as a stored record). */
const some = <T>(good: fc.Arbitrary<T>, ...bad: unknown[]) => fc.oneof(
  { weight: 40, arbitrary: good },
  ...(bad.length > 0 ? [{ weight: 1, arbitrary: fc.constantFrom(...bad) }] : []),
  { weight: 1, arbitrary: fc.jsonValue() }
)
const count = some(fc.nat(), -1, 1.5, 2 ** 53)
const number = some(fc.double({ noNaN: true, noDefaultInfinity: true }), '1')
const text = some(fc.string())
const variant = fc.record({ id: text, title: text, price: number, stock: some(fc.option(fc.nat())), more: fc.jsonValue() },
  { requiredKeys: ['id', 'title', 'price', 'stock'] })
const product = fc.record({ id: text, title: text, variants: some(fc.array(variant, { maxLength: 3 })) })
const cartItem = fc.record({ variantId: text, productId: text, title: text, quantity: some(fc.integer({ min: 1, max: 99 }), 0), unitPrice: number })
const account = fc.record({
  tenantId: text,
  tenantName: text,
  name: text,
  role: some(fc.constantFrom('member', 'grower', 'admin'), 'owner'),
  linkedAt: number,
  expiresAt: number,
  locale: some(fc.constantFrom('es', 'en', undefined), 'fr'),
  updates: some(fc.constantFrom(true, false, undefined)),
}, { requiredKeys: ['tenantId', 'tenantName', 'name', 'role', 'linkedAt', 'expiresAt'] })
const pending = some(fc.oneof(
  fc.record({ kind: fc.constantFrom('clearCart', 'unlink'), variantId: fc.string() }, { requiredKeys: ['kind'] }),
  fc.record({ kind: fc.constant('editLine'), variantId: text }, { requiredKeys: ['kind'] })
), { kind: 'other' })
const session = fc.record({
  machineVersion: some(fc.constant(MACHINE_VERSION), 1, 3),
  phone: text,
  state: some(fc.constantFrom(...CONVERSATION_STATES), 'SHOPPING'),
  tenantId: some(fc.constantFrom('club-norte', undefined)),
  product: some(fc.option(product, { nil: undefined })),
  selectedVariantId: text,
  cart: some(fc.array(cartItem, { maxLength: 3 })),
  cartId: some(fc.constantFrom('cart_1', undefined)),
  lastActivity: number,
  accounts: some(fc.array(account, { maxLength: 2 })),
  linkFailures: count,
  options: some(fc.array(fc.string(), { maxLength: 4 })),
  shown: some(fc.option(fc.array(fc.string(), { maxLength: 9 }), { nil: undefined })),
  catalogOffset: count,
  catalogCount: count,
  query: some(fc.option(fc.string(), { nil: undefined })),
  wanted: some(fc.option(fc.nat(), { nil: undefined }), -2),
  pending,
  catalog: fc.jsonValue(),
}, {
  requiredKeys: ['machineVersion', 'phone', 'state', 'cart', 'lastActivity', 'accounts', 'linkFailures', 'options', 'catalogOffset', 'catalogCount'],
})

describe('stored session, quick reader', () => {
  it('answers what storedSession answers, in its key order, or leaves the record to the schemas (property)', () => {
    let quick = 0
    let parsed = 0
    fc.assert(fc.property(fc.oneof({ weight: 10, arbitrary: session }, { weight: 1, arbitrary: fc.jsonValue() }), fc.boolean(), (doc, viaJson) => {
      // as stored (undefined keys gone), or as built in memory (undefined keys kept)
      const json: unknown = viaJson ? JSON.parse(JSON.stringify(doc) ?? 'null') : doc
      const reference = storedSession.safeParse(json)
      if (reference.success) parsed++
      const fast = quickSession(json)
      if (fast === undefined) return
      quick++
      expect(reference.success).toBe(true)
      expect(ordered(fast)).toStrictEqual(ordered(reference.data))
    }), { numRuns: 4000 })
    // not vacuous: most records the schema reads, the quick reader reads too
    expect(quick).toBeGreaterThan(500)
    expect(quick).toBe(parsed)
  })

  it('a record of the current version restores from the quick reader with the schema\'s defaults', () => {
    const doc = {
      machineVersion: MACHINE_VERSION,
      phone: '5491100000001',
      state: 'MAIN_MENU',
      tenantId: 'club-norte',
      cart: [],
      lastActivity: 3,
      accounts: [],
      linkFailures: 0,
      options: [],
      catalogOffset: 0,
      catalogCount: 0,
      catalog: [],
    }
    expect(quickSession(doc)).toEqual({ ...doc, shown: [], catalog: undefined })
    expect(Object.keys(quickSession(doc) ?? {})).not.toContain('catalog')
    const { snapshot, migrated } = restoreSession(JSON.stringify(doc), doc.phone, 9)
    expect(migrated).toBe(false)
    expect(snapshot.value).toBe('MAIN_MENU')
    expect(snapshot.context.shown).toEqual([])
  })
})
