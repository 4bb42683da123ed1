import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { choiceId, parseChoice, type Choice } from '../../machines/conversation.choices.ts'
import type { MenuItem } from '../../machines/conversation.types.ts'

// Reply ids are outside input (the provider echoes them, a member can type anything): every id the bot builds
// reads back as the same choice, and any other text is either a choice the bot could offer or nothing.

const id = fc.string({ minLength: 1, maxLength: 30 })
const menuItem = fc.constantFrom<MenuItem>(
  'browse', 'cart', 'repeat', 'orders', 'notifications', 'crops', 'switch-club', 'person', 'language', 'unlink', 'updates-off', 'updates-on'
)
const choiceArb: fc.Arbitrary<Choice> = fc.oneof(
  fc.constantFrom('login' as const, 'code' as const).map((what) => ({ kind: 'link' as const, what })),
  id.map((tenantId) => ({ kind: 'tenant' as const, tenantId })),
  menuItem.map((item) => ({ kind: 'menu' as const, item })),
  id.map((productId) => ({ kind: 'product' as const, productId })),
  id.map((variantId) => ({ kind: 'variant' as const, variantId })),
  fc.constantFrom('more' as const, 'first' as const).map((what) => ({ kind: 'products' as const, what })),
  fc.constantFrom('checkout' as const, 'browse' as const, 'edit' as const, 'clear' as const, 'all' as const).map((what) => ({ kind: 'cart' as const, what })),
  id.filter((v) => v !== 'remove').map((variantId) => ({ kind: 'line' as const, variantId })),
  fc.constant({ kind: 'removeLine' as const }),
  fc.constantFrom('confirm' as const, 'cancel' as const).map((what) => ({ kind: 'order' as const, what })),
  fc.boolean().map((yes) => ({ kind: 'answer' as const, yes }))
)

describe('conversation choices', () => {
  it('every choice reads back from its id as itself', () => {
    fc.assert(fc.property(choiceArb, (choice) => {
      expect(parseChoice(choiceId(choice))).toEqual(choice)
    }))
  })

  it('any text parses to nothing or to a choice whose id is that text', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), choiceArb.map(choiceId).map((s) => s.slice(0, -1)), choiceArb.map((c) => `${choiceId(c)}x`)), (text) => {
      const choice = parseChoice(text)
      if (choice !== undefined) expect(choiceId(choice)).toBe(text)
    }))
  })

  it('ids the bot never offers are nothing', () => {
    for (const text of [
      'menu:nope', 'link:', ':x', 'cart:pay', 'confirm:maybe', 'order:', 'nothing', 'products:last'
    ]) expect(parseChoice(text)).toBeUndefined()
  })
})
