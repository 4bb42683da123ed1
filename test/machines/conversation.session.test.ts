import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { initialTransition } from 'xstate'
import { conversationMachine } from '../../machines/conversation.machine.ts'
import { encodeSession, freshSession, restoreSession } from '../../machines/conversation.session.ts'
import { MACHINE_VERSION } from '../../machines/conversation.types.ts'

// Stored sessions of another machine version, or damaged ones, resume in a safe state and never throw.

const phone = '5491100000001'
const line = { variantId: 'v1', productId: 'p1', title: 'Aceite', quantity: 2, unitPrice: 100 }

describe('conversation session codec', () => {
  it("a new phone's session is the snapshot XState's own initial transition makes, whatever the phone and time", () => {
    fc.assert(fc.property(fc.string(), fc.integer({ min: 0, max: 4_102_444_800_000 }), (phone, at) => {
      const [initial, actions] = initialTransition(conversationMachine, { phone, at })
      expect(freshSession(phone, at)).toEqual(initial)
      expect(actions).toEqual([])
    }), { numRuns: 200 })
  })

  it('a current session round-trips', () => {
    const snapshot = freshSession(phone, 5)
    const back = restoreSession(encodeSession(snapshot), phone, 9)
    expect(back.migrated).toBe(false)
    expect(back.snapshot.value).toBe('UNLINKED')
    expect(back.snapshot.context.lastActivity).toBe(5)
  })

  it('an older version with a club and a cart resumes at MAIN_MENU with the cart kept', () => {
    const old = JSON.stringify({
      machineVersion: MACHINE_VERSION - 1, state: 'PICKING_STRAIN', tenantId: 'club-norte', cart: [line], cartId: 'cart_1', lastActivity: 3
    })
    const { snapshot, migrated } = restoreSession(old, phone, 10)
    expect(migrated).toBe(true)
    expect(snapshot.value).toBe('MAIN_MENU')
    expect(snapshot.context).toMatchObject({ tenantId: 'club-norte', cart: [line], cartId: 'cart_1', phone })
  })

  it('a session stored before search, confirmations and language existed resumes as it was', () => {
    const before = {
      machineVersion: MACHINE_VERSION,
      phone,
      state: 'VIEWING_CART',
      tenantId: 'club-norte',
      cart: [line],
      cartId: 'cart_1',
      lastActivity: 3,
      accounts: [{ tenantId: 'club-norte', tenantName: 'Club Norte', name: 'Ana', role: 'member', linkedAt: 1, expiresAt: 9e15 }],
      linkFailures: 0,
      options: ['cart:checkout', 'cart:browse', 'cart:clear'],
      catalog: [{ id: 'p1', title: 'Aceite', variants: [{ id: 'v1', title: '30 ml', price: 100, stock: 5 }] }],
      catalogOffset: 0,
      catalogCount: 1,
    }
    const { snapshot, migrated } = restoreSession(JSON.stringify(before), phone, 10)
    expect(migrated).toBe(false)
    expect(snapshot.value).toBe('VIEWING_CART')
    expect(snapshot.context).toMatchObject({ cart: [line], options: before.options })
    expect(snapshot.context.pending).toBeUndefined()
  })

  it('a session of machine version 1 resumes where it was, keeping product ids and the product being chosen, no page of products', () => {
    const page = [
      { id: 'p1', title: 'Aceite', variants: [{ id: 'v1', title: '30 ml', price: 100, stock: 5 }] },
      { id: 'p2', title: 'Flores', variants: [{ id: 'v2a', title: '5 g', price: 50, stock: 3 }, { id: 'v2b', title: '10 g', price: 90, stock: 0 }] },
    ]
    const v1 = {
      machineVersion: 1,
      phone,
      state: 'AWAITING_QUANTITY',
      tenantId: 'club-norte',
      selectedProductId: 'p2',
      selectedVariantId: 'v2a',
      cart: [line],
      cartId: 'cart_1',
      lastActivity: 3,
      accounts: [{ tenantId: 'club-norte', tenantName: 'Club Norte', name: 'Ana', role: 'member', linkedAt: 1, expiresAt: 9e15 }],
      linkFailures: 0,
      options: [],
      catalog: page,
      catalogOffset: 9,
      catalogCount: 20,
    }
    const asking = restoreSession(JSON.stringify(v1), phone, 10)
    expect(asking.migrated).toBe(true)
    expect(asking.snapshot.value).toBe('AWAITING_QUANTITY')
    expect(asking.snapshot.context).toMatchObject({
      product: page[1], selectedVariantId: 'v2a', shown: ['p1', 'p2'], catalogOffset: 9, cart: [line], cartId: 'cart_1'
    })
    const back = JSON.parse(encodeSession(asking.snapshot))
    expect(back).toMatchObject({ machineVersion: MACHINE_VERSION })
    expect(back.catalog).toBeUndefined()

    const menu = restoreSession(JSON.stringify({ ...v1, state: 'MAIN_MENU', cart: [], cartId: undefined }), phone, 10)
    expect(menu.migrated).toBe(true)
    expect(menu.snapshot.value).toBe('MAIN_MENU')
    expect(menu.snapshot.context).toMatchObject({ tenantId: 'club-norte', shown: [], catalogOffset: 0 })
    expect(menu.snapshot.context.product).toBeUndefined()
    expect(encodeSession(menu.snapshot)).not.toMatch(/Aceite|Flores/)
  })

  it('a state that no longer exists, or no club, resets to UNLINKED', () => {
    const removed = JSON.stringify({ machineVersion: MACHINE_VERSION, state: 'GONE', cart: [] })
    expect(restoreSession(removed, phone, 1).snapshot.value).toBe('UNLINKED')
    expect(restoreSession('{not json', phone, 1)).toMatchObject({ migrated: true })
  })

  it('any stored text restores to an active snapshot without throwing', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(), fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ machineVersion: MACHINE_VERSION, state: 'MAIN_MENU', tenantId: 'club-norte', cart: v }))
        ),
        (raw) => {
          const { snapshot } = restoreSession(raw, phone, 1)
          expect(snapshot.status).toBe('active')
        }
      )
    )
  })
})
