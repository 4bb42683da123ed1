import { choosesPerson } from '../../../machines/handoff.ts'
import type { InboundMessage } from '../inbound.ts'
import { sendBodyFor } from '../outbound/messages.ts'
import type { OutboxEntry } from '../outbound/transport.ts'
import type { KeptSessions, TurnResult } from '../runtime.ts'
import type { SessionFields } from '../session-fields.ts'
import type { PhoneView } from '../phone-view.ts'
import { APPLIED_KEPT, type SessionState, type PhoneViewReader } from '../store/index.ts'
import type { Turns } from '../worker.ts'
import type { ChatInbox } from './service.ts'

// The handoff beside the conversation machine: a turn of a phone whose club has been asked for a person, or
// whose conversation staff took over, keeps the session as it is (the message is applied, stored in the
// history and shown to staff, and the bot says nothing); "talk to a person" (the menu row, or the words)
// raises the flag; a request that timed out is handed back with an apology before the bot's answer.

export class HandoffGate implements Turns {
  constructor (
    private readonly bot: Turns,
    private readonly inbox: ChatInbox,
    private readonly readView: PhoneViewReader,
    /** The bot's kept sessions: the document's fields without parsing it again when it is the one the phone's last turn here saved. */
    private readonly sessions: Pick<KeptSessions, 'fields'>
  ) {}

  async run (message: InboundMessage, session: SessionState): Promise<TurnResult> {
    const saved = this.sessions.fields(message.phone, session.doc)
    const tenantId = saved.tenantId
    if (!tenantId || message.input.kind === 'linked') return await this.bot.run(message, session)
    // the phone's view, read once for the turn (with the club's flag): the gate's flag comes from it and the bot gets the same
    const view = session.view ?? this.readView(message.phone, tenantId)
    session = { ...session, view }
    const gate = await this.gate(message, tenantId, await view)
    if (gate === 'silent') return this.kept(message, session, saved, [])
    // a typed number picks one of the options the last message offered
    if (choosesPerson(message.input, Array.isArray(saved.options) ? saved.options as string[] : [])) {
      return this.kept(message, session, saved, [await this.inbox.request(message.phone, session.doc, message.receivedAt)])
    }
    const result = await this.bot.run(message, session)
    if (gate !== 'timed-out') return result
    return { ...result, replies: [this.entry(message, tenantId, 'apology', await this.inbox.apology(tenantId, session.doc)), ...result.replies] }
  }

  /** No flag on the club's conversation in the view: the bot answers, as the inbox would say; else the inbox decides (and may hand back). */
  private async gate (message: InboundMessage, tenantId: string, view: PhoneView): Promise<'silent' | 'bot' | 'timed-out'> {
    if (await view.handoff(tenantId) === undefined) return 'bot'
    return await this.inbox.gate(message.phone, tenantId, message.receivedAt)
  }

  /** The message applied without moving the conversation: the session stays, only the applied id is added. */
  private kept (message: InboundMessage, session: SessionState, saved: SessionFields, texts: string[]): TurnResult {
    const state = saved.state ?? ''
    return {
      doc: session.doc as string,
      tenantId: saved.tenantId,
      applied: [message.id, ...session.applied].slice(0, APPLIED_KEPT),
      replies: texts.map((t, i) => this.entry(message, saved.tenantId, String(i), t)),
      before: state,
      after: state,
    }
  }

  private entry (message: InboundMessage, tenantId: string | undefined, suffix: string, text: string): OutboxEntry {
    return {
      id: `${message.id}:handoff-${suffix}`,
      phone: message.phone,
      tenantId,
      at: message.receivedAt,
      body: sendBodyFor(message.phone, { type: 'text', text: { body: text } })
    }
  }
}
