import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { initialTransition, transition } from 'xstate'
import { conversationMachine } from '../../machines/conversation.machine.ts'
import { currentAccount } from '../../machines/conversation.logic.ts'
import { encodeSession, freshSession, restoreSession, stepConversation, type ConversationSnapshot } from '../../machines/conversation.session.ts'
import { CONVERSATION_STATES, IDLE_RESET_MS, type AccountRef, type CartItem, type ConversationEvent } from '../../machines/conversation.types.ts'
import { EXPIRED, MORE_TEXTS, NORTE, REPLIES, SUR, TEXTS, results } from './conversation.fixtures.ts'

// Random conversations: any sequence of inbound messages of every type and of I/O results.

const LINKED_STATES = new Set(['MAIN_MENU', 'BROWSING_PRODUCTS', 'AWAITING_QUANTITY', 'VIEWING_CART', 'CONFIRMING_ORDER'])
const accountsArb = fc.constantFrom<AccountRef[]>([], [NORTE], [NORTE, SUR], [EXPIRED], [SUR])
const gapArb = fc.oneof(fc.integer({ min: 0, max: 60_000 }), fc.constant(IDLE_RESET_MS + 1))
const textArb = fc.oneof(fc.constantFrom(...TEXTS, ...MORE_TEXTS), fc.string({ maxLength: 40 }), fc.integer({ min: -5, max: 200 }).map(String))

type Step = {
  kind: 'inbound',
  gap: number,
  accounts: AccountRef[],
  input: { type: 'TEXT', text: string } | { type: 'REPLY', id: string } | { type: 'UNSUPPORTED' } | { type: 'LINKED' }
}
  | { kind: 'result', pick: number }

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('inbound' as const),
    gap: gapArb,
    accounts: accountsArb,
    input: fc.oneof(
      textArb.map((text) => ({ type: 'TEXT' as const, text })),
      fc.oneof(fc.constantFrom(...REPLIES), fc.string({ maxLength: 20 })).map((id) => ({ type: 'REPLY' as const, id })),
      fc.constant({ type: 'UNSUPPORTED' as const }),
      fc.constant({ type: 'LINKED' as const })
    ),
  }),
  fc.record({ kind: fc.constant('result' as const), pick: fc.nat() })
)

function eventOf (step: Step, snapshot: ConversationSnapshot): ConversationEvent {
  if (step.kind === 'result') {
    const all = results(snapshot.context.selectedVariantId)
    return all[step.pick % all.length] as ConversationEvent
  }
  const at = snapshot.context.lastActivity + step.gap
  const i = step.input
  if (i.type === 'TEXT') return { type: 'TEXT', text: i.text, at, accounts: step.accounts }
  if (i.type === 'REPLY') return { type: 'REPLY', id: i.id, title: i.id, at, accounts: step.accounts }
  if (i.type === 'UNSUPPORTED') return { type: 'UNSUPPORTED', messageType: 'image', at, accounts: step.accounts }
  return { type: 'LINKED', at, accounts: step.accounts }
}

const quantities = (cart: CartItem[]) => cart.reduce((n, l) => n + l.quantity, 0)

function run (steps: Step[], check: (before: ConversationSnapshot, event: ConversationEvent, after: ConversationSnapshot) => void): void {
  let [snapshot] = initialTransition(conversationMachine, { phone: '5491100000001', at: 1_000 })
  for (const step of steps) {
    const event = eventOf(step, snapshot)
    const [next] = transition(conversationMachine, snapshot, event)
    check(snapshot, event, next)
    snapshot = next
  }
}

describe('conversation machine, properties', () => {
  it('never crashes and never leaves the eight states', () => {
    fc.assert(fc.property(fc.array(stepArb, { maxLength: 60 }), (steps) => {
      run(steps, (_before, _event, after) => {
        expect(after.status).toBe('active')
        expect(CONVERSATION_STATES).toContain(after.value)
      })
    }), { numRuns: 400 })
  })

  it('never reaches a menu state without a valid link to the club it is in', () => {
    fc.assert(fc.property(fc.array(stepArb, { maxLength: 60 }), (steps) => {
      run(steps, (_before, _event, after) => {
        if (!LINKED_STATES.has(String(after.value))) return
        expect(currentAccount(after.context, after.context.accounts, after.context.lastActivity)).toBeDefined()
      })
    }), { numRuns: 400 })
  })

  it(
    'never loses or duplicates a cart line: one line per variant; only adds, a repeat and a line edit change it, only clear, ' +
      'order (placed or its answer lost) or another club empties it',
    () => {
      fc.assert(fc.property(fc.array(stepArb, { maxLength: 60 }), (steps) => {
        run(steps, (before, event, after) => {
          const variants = after.context.cart.map((l) => l.variantId)
          expect(new Set(variants).size).toBe(variants.length)
          const was = quantities(before.context.cart)
          const now = quantities(after.context.cart)
          if (now === was && after.context.cart.length === before.context.cart.length) return
          // an add to another cart than the one held (that one became an order) starts the cart afresh
          if (event.type === 'ADDED') {
            return expect(now).toBe(
              (before.context.cartId === undefined || before.context.cartId === event.cartId ? was : 0) + event.quantity
            )
          }
          if (event.type === 'REPEATED') return expect(now).toBe(was + quantities(event.lines))
          if (event.type === 'LINE_SET') {
            const line = before.context.cart.find((l) => l.variantId === event.variantId)
            return expect(now).toBe(was - (line?.quantity ?? 0) + (line ? event.quantity : 0))
          }
          expect(after.context.cart).toEqual([])
          const move = `${String(before.value)}>${String(after.value)}`
          const clubChanged = after.context.tenantId !== before.context.tenantId
          const allowed = clubChanged ||
          ((event.type === 'ORDER_PLACED' || event.type === 'ORDER_UNKNOWN') && move === 'CONFIRMING_ORDER>MAIN_MENU') ||
          // an empty cart or unlink only on a "yes" to the question asked
          ('at' in event && before.context.pending !== undefined && (move === 'VIEWING_CART>MAIN_MENU' || move === 'MAIN_MENU>UNLINKED'))
          expect(allowed, `${event.type} ${move}`).toBe(true)
        })
      }), { numRuns: 400 })
    }
  )

  it('the cart survives a save and restore at every step', () => {
    fc.assert(fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
      run(steps, (_before, _event, after) => {
        const { snapshot, migrated } = restoreSession(encodeSession(after), '5491100000001', 0)
        expect(migrated).toBe(false)
        expect(snapshot.value).toBe(after.value)
        expect(snapshot.context).toEqual(JSON.parse(JSON.stringify(after.context)))
      })
    }), { numRuns: 100 })
  })

  it('a snapshot answers the next event as the one restored from its document does: the same document and actions', () => {
    // why src/chat/runtime.ts may resume a phone's next turn from the snapshot its last turn ended in
    const shape = (actions: ReadonlyArray<{ type: string, params?: unknown }>) => actions.map((a) => ({ type: a.type, params: a.params }))
    fc.assert(fc.property(fc.array(stepArb, { maxLength: 60 }), (steps) => {
      let kept = freshSession('5491100000001', 1_000)
      for (const step of steps) {
        const event = eventOf(step, kept)
        const restored = restoreSession(encodeSession(kept), '5491100000001', 0).snapshot
        expect(restored.value).toBe(kept.value)
        expect(restored.context).toEqual(JSON.parse(JSON.stringify(kept.context)))
        const [next, actions] = stepConversation(kept, event)
        const [again, actionsAgain] = stepConversation(restored, event)
        expect(again.value).toBe(next.value)
        expect(JSON.parse(encodeSession(again))).toEqual(JSON.parse(encodeSession(next)))
        expect(shape(actionsAgain)).toEqual(shape(actions))
        kept = next
      }
    }), { numRuns: 200 })
  })

  it("the runtime's step (one scope for every step) answers as XState's transition(): the same snapshot and actions, in order", () => {
    expect(freshSession('5491100000001', 1_000)).toEqual(initialTransition(conversationMachine, { phone: '5491100000001', at: 1_000 })[0])
    const shape = (actions: ReadonlyArray<{ type: string, params?: unknown }>) => actions.map((a) => ({ type: a.type, params: a.params }))
    fc.assert(fc.property(fc.array(stepArb, { maxLength: 60 }), (steps) => {
      let ours = freshSession('5491100000001', 1_000)
      run(steps, (before, event, after) => {
        const [next, actions] = stepConversation(ours, event)
        expect(next.value).toBe(after.value)
        expect(next.context).toEqual(after.context)
        expect(next.status).toBe(after.status)
        expect(shape(actions)).toEqual(shape(transition(conversationMachine, before, event)[1]))
        ours = next
      })
    }), { numRuns: 200 })
  })
})
