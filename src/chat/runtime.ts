import type { FastifyBaseLogger } from 'fastify'
import { transition } from 'xstate'
import { conversationMachine } from '../../machines/conversation.machine.ts'
import { encodeSession, restoreSession, type ConversationSnapshot } from '../../machines/conversation.session.ts'
import type { AccountRef, ConversationEvent, InboundEvent } from '../../machines/conversation.types.ts'
import { effectsOf, type Effects, type EffectAction } from './effects.ts'
import type { InboundInput, InboundMessage } from './inbound.ts'
import type { SessionStore } from './sessions.ts'

// One turn of a conversation: load the session, compute the next state with XState's pure `transition`, save it
// with a compare-and-set, then perform the returned actions; each result comes back as the next event.

/** A turn never loops: an inbound event and at most this many results. */
const MAX_STEPS = 8
const SAVE_ATTEMPTS = 5

export function inboundEvent (input: InboundInput, at: number, accounts: AccountRef[]): InboundEvent {
  switch (input.kind) {
    case 'text': return { type: 'TEXT', text: input.text, at, accounts }
    case 'reply': return { type: 'REPLY', id: input.id, title: input.title, at, accounts }
    case 'unsupported': return { type: 'UNSUPPORTED', messageType: input.messageType, at, accounts }
    case 'linked': return { type: 'LINKED', at, accounts }
  }
}

export class ConversationRuntime {
  constructor (
    private readonly sessions: SessionStore,
    private readonly effects: Effects,
    private readonly log: FastifyBaseLogger
  ) {}

  /** Runs the turn of one accepted message to its end. */
  async handle (message: InboundMessage): Promise<void> {
    const accounts = await this.effects.accounts(message.phone)
    let event: ConversationEvent | undefined = inboundEvent(message.input, message.receivedAt, accounts)
    for (let step = 0; event && step < MAX_STEPS; step++) {
      const { snapshot, actions } = await this.apply(message.phone, event, message.receivedAt)
      event = await this.perform(message.phone, snapshot, actions)
    }
  }

  /** The actions in order; an action's result event supersedes the rest of its step. */
  private async perform (phone: string, snapshot: ConversationSnapshot, actions: EffectAction[]): Promise<ConversationEvent | undefined> {
    for (const action of actions) {
      const result = await this.effects.perform(phone, snapshot.context.tenantId, action)
      if (result) return result
    }
    return undefined
  }

  /** Load, transition, compare-and-set; a lost race reloads and recomputes, so no update is lost. */
  private async apply (phone: string, event: ConversationEvent, at: number): Promise<{ snapshot: ConversationSnapshot, actions: EffectAction[] }> {
    for (let attempt = 1; attempt <= SAVE_ATTEMPTS; attempt++) {
      const stored = await this.sessions.load(phone)
      const { snapshot, migrated } = restoreSession(stored.doc, phone, at)
      if (migrated) this.log.warn({ phone }, 'chat session of another machine version reset to a safe state')
      const [next, actions] = transition(conversationMachine, snapshot, event)
      if (next.status !== 'active') throw new Error(`conversation machine ended in status ${next.status}`)
      const saved = await this.sessions.save(phone, stored.version, encodeSession(next))
      if (saved !== undefined) return { snapshot: next, actions: effectsOf(actions) }
    }
    throw new Error('chat session kept changing under this turn')
  }
}
