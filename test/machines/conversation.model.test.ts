import { describe, expect, it } from 'vitest'
import { initialTransition, transition, type AnyTransitionDefinition } from 'xstate'
import { getAdjacencyMap, getShortestPaths } from 'xstate/graph'
import { conversationMachine } from '../../machines/conversation.machine.ts'
import { CONVERSATION_STATES, type ConversationEvent } from '../../machines/conversation.types.ts'
import type { ConversationSnapshot } from '../../machines/conversation.session.ts'
import { eventsAt } from './conversation.fixtures.ts'

// Model-based: walk the machine with one event of every kind from every (abstracted) state, then check that a
// path reaches each of the eight states and that every move written in the machine is taken somewhere.

const input = { phone: '5491100000001', at: 1_000 }
const traversal = {
  input,
  events: (s: ConversationSnapshot) => eventsAt(s.context.lastActivity + 1_000, s.context.accounts, s.context.selectedVariantId),
  // what decides the moves, not the exact times and quantities, so that the walk ends
  serializeState: (s: ConversationSnapshot) => JSON.stringify([
    s.value,
    s.context.tenantId,
    s.context.cart.length > 0,
    s.context.cartId !== undefined,
    s.context.linkFailures,
    s.context.selectedVariantId,
    s.context.selectedProductId,
    s.context.catalog.length,
    s.context.accounts.map((a) => `${a.tenantId}:${a.expiresAt > s.context.lastActivity}`),
  ]),
}

describe('conversation machine, model-based', () => {
  const paths = getShortestPaths(conversationMachine, traversal)

  it.each(CONVERSATION_STATES)('a path reaches %s, and replaying it gets there', (state) => {
    const path = paths.find((p) => p.state.value === state)
    expect(path, `no path to ${state}`).toBeDefined()
    let [snapshot] = initialTransition(conversationMachine, input)
    for (const step of path?.steps ?? []) [snapshot] = transition(conversationMachine, snapshot, step.event)
    expect(snapshot.value).toBe(state)
  })

  it('every move of the machine is taken from some reachable state', () => {
    const adjacency = getAdjacencyMap(conversationMachine, traversal)
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

  it('only the eight states exist, UNLINKED first', () => {
    expect(Object.keys(conversationMachine.root.states).sort()).toEqual([...CONVERSATION_STATES].sort())
    expect(initialTransition(conversationMachine, input)[0].value).toBe('UNLINKED')
  })
})
