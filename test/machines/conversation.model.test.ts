import { describe, expect, it } from 'vitest'
import { initialTransition, transition, type AnyTransitionDefinition } from 'xstate'
import { getAdjacencyMap, type AdjacencyMap } from 'xstate/graph'
import { CART_PREVIEW_LINES } from '../../machines/conversation.logic.ts'
import { conversationMachine } from '../../machines/conversation.machine.ts'
import { CONVERSATION_STATES, type AccountRef, type ConversationEvent, type Reply } from '../../machines/conversation.types.ts'
import { outboundMessage } from '../../src/chat/outbound/messages.ts'
import { compose } from '../../src/chat/replies/compose.ts'
import type { ConversationSnapshot } from '../../machines/conversation.session.ts'
import { eventsAt } from './conversation.fixtures.ts'

// Model-based: walk the machine with one event of every kind from every (abstracted) state, then check that a
// path reaches each of the eight states and that every move written in the machine is taken somewhere.

const input = { phone: '5491100000001', at: 1_000 }
const traversal = {
  input,
  events: (s: ConversationSnapshot) => eventsAt(s.context.lastActivity + 1_000, s.context.accounts, s.context.selectedVariantId),
  // what decides the moves, not the exact times, quantities and ids, so that the walk ends
  serializeState: (s: ConversationSnapshot) => {
    const c = s.context
    const shopping = s.value === 'BROWSING_PRODUCTS' || s.value === 'AWAITING_QUANTITY'
    return JSON.stringify([
      s.value,
      c.tenantId,
      c.cart.length > CART_PREVIEW_LINES ? 'long' : c.cart.length > 0,
      s.value === 'AWAITING_LINK_CODE' ? c.linkFailures : 0,
      shopping ? [c.selectedVariantId !== undefined, c.product !== undefined, c.shown.length > 0, c.query !== undefined, c.wanted !== undefined] : [],
      c.pending?.kind,
      [...new Set(c.options.map((o) => o.split(':')[0]))].join(),
      c.options.at(-1),
      c.options.includes('menu:updates-on'),
      c.accounts.map((a) => `${a.tenantId}:${a.expiresAt > c.lastActivity}`),
    ])
  },
}

/** Every reachable (abstracted) state once, with the events that lead there from the start. */
type Step = { event: ConversationEvent, state: ConversationSnapshot }

function reachable (adjacency: AdjacencyMap<ConversationSnapshot, ConversationEvent>) {
  const edges = (key: string): Step[] => Object.values((adjacency as unknown as Record<string, { transitions: Record<string, Step> }>)[key]?.transitions ?? {})
  const [start] = Object.keys(adjacency)
  const found = new Map<string, ConversationEvent[]>(start === undefined ? [] : [[start, []]])
  const queue = [...found.keys()]
  for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
    for (const { event, state } of edges(key)) {
      const next = traversal.serializeState(state)
      if (found.has(next)) continue
      found.set(next, [...(found.get(key) ?? []), event])
      queue.push(next)
    }
  }
  return found
}

/** Replies that ask for typed input: the member is not stuck without buttons after them. */
const ASKS_FOR_TEXT = new Set(['askCode', 'askQuantity', 'askLineQuantity', 'badQuantity'])
const STUCK_INPUTS = (at: number, accounts: AccountRef[]): Array<[string, ConversationEvent]> => [
  ...['ayuda', 'help', 'menu', 'cancelar', 'cancel', 'asdf qwerty', '🙂🙂'].map((text): [string, ConversationEvent] =>
    [text, { type: 'TEXT', text, at, accounts }]),
  ['image', { type: 'UNSUPPORTED', messageType: 'image', at, accounts }],
]

describe('conversation machine, model-based', () => {
  // one walk (the slow part) shared by the checks below
  const adjacency = getAdjacencyMap(conversationMachine, traversal)
  const paths = reachable(adjacency)

  it.each(CONVERSATION_STATES)('a path reaches %s, and replaying it gets there', (state) => {
    const found = [...paths.entries()].find(([key]) => JSON.parse(key)[0] === state)
    expect(found, `no path to ${state}`).toBeDefined()
    let [snapshot] = initialTransition(conversationMachine, input)
    for (const event of found?.[1] ?? []) [snapshot] = transition(conversationMachine, snapshot, event)
    expect(snapshot.value).toBe(state)
  })

  it('every move of the machine is taken from some reachable state', () => {
    const taken = new Set<AnyTransitionDefinition>()
    for (const { state, transitions } of Object.values(adjacency)) {
      for (const { event } of Object.values(transitions) as Array<{ event: ConversationEvent }>) {
        for (const t of conversationMachine.getTransitionData(state, event)) taken.add(t)
      }
    }
    const missing: string[] = []
    for (const [name, node] of Object.entries(conversationMachine.root.states)) {
      for (const [eventType, list] of node.transitions) {
        list.forEach((t, i) => { if (!taken.has(t)) missing.push(`${name} ${eventType}#${i} ${JSON.stringify(t.guard ?? null)}`) })
      }
    }
    expect(missing).toEqual([])
  })

  it('in every reachable state, help, menu, cancel, garbage, emoji and an image get an answer within the provider limits and a way on', () => {
    const problems: string[] = []
    for (const { state } of Object.values(adjacency)) {
      const at = state.context.lastActivity + 1_000
      for (const [name, event] of STUCK_INPUTS(at, state.context.accounts)) {
        const [next, actions] = transition(conversationMachine, state, event)
        const replies = actions.flatMap((a) => a.type === 'reply' ? [a.params as Reply] : [])
        const where = `${String(state.value)} ${name}`
        // words read as a search are answered when the catalog comes back (its outcomes are moves checked above)
        if (actions.some((a) => a.type === 'searchProducts')) continue
        if (replies.length === 0) problems.push(`${where}: silence`)
        for (const reply of replies) {
          for (const locale of ['es', 'en'] as const) {
            for (const message of compose(reply, { locale, currency: 'ARS' })) {
              const checked = outboundMessage.safeParse(message)
              if (!checked.success) problems.push(`${where}: ${reply.id} breaks a limit`)
            }
          }
        }
        const last = replies.at(-1)
        const wayOn = next.context.options.length > 0 || (last !== undefined && ASKS_FOR_TEXT.has(last.id))
        if (!wayOn) problems.push(`${where}: dead end after ${last?.id}`)
      }
    }
    expect([...new Set(problems)]).toEqual([])
  })

  it('only the eight states exist, UNLINKED first', () => {
    expect(Object.keys(conversationMachine.root.states).sort()).toEqual([...CONVERSATION_STATES].sort())
    expect(initialTransition(conversationMachine, input)[0].value).toBe('UNLINKED')
  })
})
