import type { Handoff } from '../../machines/handoff.ts'
import type { InboxStore } from './inbox/store.ts'
import type { LinkedAccount, LinkedAccountStore } from './linking/types.ts'

// What a turn reads of the phone's records besides its session: its linked accounts with their chat-update
// setting, and the handoff flag of the session's club's conversation. The accounts are read once per turn
// (beside the take where the store can, docs/chat.md "One read per turn") and handed down to the handoff gate
// and the effects, which keep it up to date with the turn's own writes (a link, an unlink, a language, updates
// on or off), so that a later step of the same turn sees them without reading again. The flag is read when the
// gate asks, once the session names the club: each club's conversation with the phone has its own.

export interface PhoneRecords {
  linkedAccounts: LinkedAccountStore
  conversations: Pick<InboxStore, 'handoffOf'>
}

export class PhoneView {
  private readonly byTenant: Map<string, LinkedAccount>
  private readonly flags = new Map<string, Promise<Handoff | undefined>>()

  constructor (
    accounts: LinkedAccount[],
    private readonly updatesOff: Set<string>,
    /** Reads the handoff flag of a club's conversation with the phone. */
    private readonly readHandoff: (tenantId: string) => Promise<Handoff | undefined>
  ) {
    this.byTenant = new Map(accounts.map((a) => [a.tenantId, a]))
  }

  /** The handoff flag of the club's conversation with the phone, read once per view. */
  async handoff (tenantId: string): Promise<Handoff | undefined> {
    let flag = this.flags.get(tenantId)
    if (!flag) this.flags.set(tenantId, flag = this.readHandoff(tenantId))
    return await flag
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

/** The accounts with their updates settings (one round trip); a club's handoff flag when asked. */
export async function readPhoneView (records: PhoneRecords, phone: string): Promise<PhoneView> {
  const links = await records.linkedAccounts.links(phone)
  return new PhoneView(links.accounts, new Set(links.updatesOff), async (tenantId) => await records.conversations.handoffOf(tenantId, phone))
}
