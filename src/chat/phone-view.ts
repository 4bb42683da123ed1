import type { Handoff } from '../../machines/handoff.ts'
import type { InboxStore } from './inbox/store.ts'
import type { LinkedAccount, LinkedAccountStore } from './linking/types.ts'

// What a turn reads of the phone's records besides its session: its linked accounts with their chat-update
// setting, and the handoff flag of its conversation. Read once per turn (beside the take where the store can,
// docs/chat.md "One read per turn") and handed down to the handoff gate and the effects, which keep it up to
// date with the turn's own writes (a link, an unlink, a language, updates on or off), so that a later step of
// the same turn sees them without reading again.

export interface PhoneRecords {
  linkedAccounts: LinkedAccountStore
  conversations: Pick<InboxStore, 'conversation'>
}

export class PhoneView {
  private readonly byTenant: Map<string, LinkedAccount>

  constructor (
    accounts: LinkedAccount[],
    private readonly updatesOff: Set<string>,
    /** The club the conversation is with and its handoff flag (none before the first turn with a club). */
    readonly conversation: { tenantId: string, handoff: Handoff | undefined } | undefined
  ) {
    this.byTenant = new Map(accounts.map((a) => [a.tenantId, a]))
  }

  /** The phone's links, by tenant id (as the store lists them). */
  get accounts (): LinkedAccount[] { return [...this.byTenant.values()].sort((a, b) => a.tenantId.localeCompare(b.tenantId)) }
  account (tenantId: string): LinkedAccount | undefined { return this.byTenant.get(tenantId) }
  updatesOn (tenantId: string): boolean { return !this.updatesOff.has(tenantId) }

  /** The turn wrote this account (a link, a language). */
  linked (account: LinkedAccount): void { this.byTenant.set(account.tenantId, account) }
  /** The turn removed the link; its updates setting goes with it, as in the store. */
  unlinked (tenantId: string): void {
    this.byTenant.delete(tenantId)
    this.updatesOff.delete(tenantId)
  }

  updates (tenantId: string, on: boolean): void {
    if (on) this.updatesOff.delete(tenantId)
    else this.updatesOff.add(tenantId)
  }
}

/** The accounts with their updates settings and the conversation, side by side (one round trip). */
export async function readPhoneView (records: PhoneRecords, phone: string): Promise<PhoneView> {
  const [links, conversation] = await Promise.all([records.linkedAccounts.links(phone), records.conversations.conversation(phone)])
  return new PhoneView(links.accounts, new Set(links.updatesOff), conversation && { tenantId: conversation.tenantId, handoff: conversation.handoff })
}
