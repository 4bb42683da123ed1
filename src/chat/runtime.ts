import type { FastifyBaseLogger } from 'fastify'
import { LRUCache } from 'lru-cache'
import { encodeSession, restoreSession, stepConversation, type ConversationSnapshot, type Restored } from '../../machines/conversation.session.ts'
import type { ConversationEvent, InboundEvent, AccountRef, ResultEvent } from '../../machines/conversation.types.ts'
import { Effects, effectsOf, type EffectAction, type EffectDeps } from './effects.ts'
import type { InboundInput, InboundMessage } from './inbound.ts'
import { TurnReplies } from './outbound/messages.ts'
import type { OutboxEntry } from './outbound/transport.ts'
import { sessionFields, type SessionFields } from './session-fields.ts'
import { APPLIED_KEPT, type ChatStore, type SessionState, type PhoneViewReader } from './store/index.ts'

// One turn of a conversation, computed in memory: restore the session, run the machine's pure transition, perform
// the I/O actions (each result comes back as the next event) and collect what the bot says. Nothing is saved
// or sent here: the worker commits the session, the applied id and the replies in one atomic step. A turn
// re-run after a crash before that step repeats its I/O, so every action that changes something outside is
// safe to repeat (addToCart sets a target quantity, placeOrder answers the order a cart became, and a link
// code's result is remembered for the phone).

/** A turn never loops: an inbound event and at most this many results. */
const MAX_STEPS = 8

function inboundEvent (input: InboundInput, at: number, accounts: AccountRef[]): InboundEvent {
  switch (input.kind) {
    case 'text': return { type: 'TEXT', text: input.text, at, accounts }
    case 'reply': return { type: 'REPLY', id: input.id, title: input.title, at, accounts }
    case 'unsupported': return { type: 'UNSUPPORTED', messageType: input.messageType, at, accounts }
    case 'linked': return { type: 'LINKED', at, accounts }
  }
}

export interface TurnResult {
  doc: string
  /** The club the session is with after the turn (the document's `tenantId`): the history records the turn for it. */
  tenantId?: string
  applied: string[]
  /** Outbox entries, in order (the commit queues each as JSON; the history record reads them as they are). */
  replies: OutboxEntry[]
  before: string
  after: string
  /** Link codes the turn consumed: their remembered results are only needed until the turn is committed. */
  linkCodes?: string[]
}

/** Phones whose last session a runtime keeps (about 2 KB each): those a busy instance served in the last minutes. */
const SESSIONS_KEPT = 5_000

/**
 * The snapshot each phone's last turn here ended in, with the document it was saved as. The phone's next turn
 * brings its document back from the store: when it is that very string, the turn resumes from the kept snapshot
 * instead of parsing, validating and resolving the document again (a snapshot answers every event as the one
 * restored from its document does: test/machines/conversation.properties.test.ts). Any other document (another
 * instance's turn, a commit that never landed, a session that expired) is restored from the document itself.
 */
export class KeptSessions {
  private readonly kept: LRUCache<string, { doc: string, snapshot: ConversationSnapshot }>

  constructor (limit = SESSIONS_KEPT) { this.kept = new LRUCache({ max: limit }) }

  /** The snapshot kept for the phone when `doc` is the very document it was saved as. */
  private snapshotOf (phone: string, doc: string | undefined): ConversationSnapshot | undefined {
    const known = doc === undefined ? undefined : this.kept.peek(phone)
    return known !== undefined && known.doc === doc ? known.snapshot : undefined
  }

  restore (doc: string | undefined, phone: string, at: number): Restored {
    const snapshot = this.snapshotOf(phone, doc)
    return snapshot ? { snapshot, migrated: false } : restoreSession(doc, phone, at)
  }

  /** What `sessionFields` reads of the document (the handoff gate's), taken from the kept snapshot when it is that document. */
  fields (phone: string, doc: string | undefined): SessionFields {
    const snapshot = this.snapshotOf(phone, doc)
    if (!snapshot) return sessionFields(doc)
    const { tenantId, options, accounts } = snapshot.context
    return { tenantId, state: String(snapshot.value), options, accounts }
  }

  /** The turn ended in `snapshot`, saved as `doc`: the least recently kept phone is dropped past the limit. */
  keep (phone: string, doc: string, snapshot: ConversationSnapshot): void { this.kept.set(phone, { doc, snapshot }) }
}

export class ConversationRuntime {
  constructor (
    private readonly deps: Omit<EffectDeps, 'replies'>,
    private readonly store: ChatStore,
    private readonly readView: PhoneViewReader,
    private readonly log: FastifyBaseLogger,
    /** Shared with the handoff gate, which reads the session's club from it before the turn. */
    readonly sessions = new KeptSessions()
  ) {}

  /** The phone's view is the one the take brought (or the handoff gate read), else read here: once per turn. */
  async run (message: InboundMessage, session: SessionState): Promise<TurnResult> {
    const phone = message.phone
    const replies = new TurnReplies(this.log)
    const effects = new Effects({ ...this.deps, replies }, await (session.view ?? this.readView(phone)))
    const { snapshot: start, migrated } = this.sessions.restore(session.doc, phone, message.receivedAt)
    if (migrated) this.log.warn({ phone }, 'chat session of another machine version reset to a safe state')
    let snapshot = start
    let event: ConversationEvent | undefined = inboundEvent(message.input, message.receivedAt, await effects.accounts())
    const linkCodes: string[] = []
    for (let step = 0; event && step < MAX_STEPS; step++) {
      const [next, actions] = stepConversation(snapshot, event)
      if (next.status !== 'active') throw new Error(`conversation machine ended in status ${next.status}`)
      snapshot = next
      event = await this.perform(effects, phone, snapshot.context.tenantId, effectsOf(actions), linkCodes)
    }
    const tenantId = snapshot.context.tenantId
    const at = this.deps.clock()
    const doc = encodeSession(snapshot)
    this.sessions.keep(phone, doc, snapshot)
    return {
      doc,
      tenantId,
      applied: [message.id, ...session.applied].slice(0, APPLIED_KEPT),
      replies: replies.bodies.map((body, i): OutboxEntry => ({ id: `${message.id}:${i}`, phone, tenantId, at, body })),
      before: String(start.value),
      after: String(snapshot.value),
      linkCodes,
    }
  }

  /** The actions in order; an action's result event supersedes the rest of its step. */
  private async perform (
    effects: Effects, phone: string, tenantId: string | undefined, actions: EffectAction[], linkCodes: string[]
  ): Promise<ConversationEvent | undefined> {
    for (const action of actions) {
      if (action.type === 'consumeLinkCode') linkCodes.push(action.params.code)
      const result = action.type === 'consumeLinkCode'
        ? await this.consumeOnce(effects, phone, tenantId, action)
        : await effects.perform(phone, tenantId, action)
      if (result) return result
    }
    return undefined
  }

  /**
   * A code is consumed once: a re-run of the turn gets the answer the first run got instead of "not found". The
   * remembered answer is asked for beside the consumption (one round trip): when there is one, the code was
   * taken by that first run or never existed (only such answers are remembered), so this consumption finds
   * nothing and changes nothing.
   */
  private async consumeOnce (
    effects: Effects, phone: string, tenantId: string | undefined, action: Extract<EffectAction, { type: 'consumeLinkCode' }>
  ): Promise<ResultEvent | undefined> {
    const code = action.params.code
    const [remembered, result] = await Promise.all([this.store.linkResult(phone, code), effects.perform(phone, tenantId, action)])
    if (remembered !== undefined) return JSON.parse(remembered) as ResultEvent
    const final = result?.type === 'LINK_OK' || (result?.type === 'LINK_FAILED' && result.reason !== 'unavailable')
    if (result && final) await this.store.putLinkResult(phone, code, JSON.stringify(result))
    return result
  }
}
