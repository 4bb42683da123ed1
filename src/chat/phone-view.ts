import { LRUCache } from 'lru-cache'
import type { Handoff } from '../../machines/handoff.ts'
import type { InboxStore } from './inbox/store.ts'
import type { LinkedAccount, LinkedAccountStore } from './linking/types.ts'

// What a turn reads of the phone's records besides its session: its linked accounts with their chat-update
// setting, and the handoff flag of the session's club's conversation. The accounts are read once per turn
// (beside the take where the store can, docs/chat.md "One read per turn") and handed down to the handoff gate
// and the effects, which keep it up to date with the turn's own writes (a link, an unlink, a language, updates
// on or off), so that a later step of the same turn sees them without reading again. The flag is read beside the
// accounts for the club the turn is known to be with (the reader is told it, or the phone's last turn here was with
// it); the flag of any other club is read when the gate asks: each club's conversation with the phone has its own.

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
    private readonly readHandoff: (tenantId: string) => Promise<Handoff | undefined>,
    /** A club's flag read with the accounts. */
    read?: { tenantId: string, flag: Promise<Handoff | undefined> }
  ) {
    this.byTenant = new Map(accounts.map((a) => [a.tenantId, a]))
    if (read) this.flags.set(read.tenantId, read.flag)
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

/** Phones whose last club a reader keeps (about 100 bytes each): those a busy instance served in the last minutes. */
const CLUBS_KEPT = 10_000

/** Reads a phone's view; `club`, when the caller knows it, is the club whose handoff flag the turn will ask for. */
export type ReadPhoneView = (phone: string, club?: string) => Promise<PhoneView>

/**
 * The accounts with their updates settings and, beside them (in the same round trip, so on one Redis behind the
 * take), the handoff flag of the turn's club: the one the caller names, else the one the phone's last turn here
 * asked for (at most `kept` phones remembered, the least recently asked dropped first). A phone talks with one
 * club nearly always, so the gate's ask is answered without a round trip of its own; a flag read for a club the
 * turn does not ask about is a read wasted, not a wrong answer (the gate reads the club it asks for).
 */
export function phoneViewReader (records: PhoneRecords, kept = CLUBS_KEPT): ReadPhoneView {
  const clubs = new LRUCache<string, string>({ max: kept })
  const readHandoff = async (phone: string, tenantId: string): Promise<Handoff | undefined> => {
    clubs.set(phone, tenantId)
    return await records.conversations.handoffOf(tenantId, phone)
  }
  return async (phone, club) => {
    const links = records.linkedAccounts.links(phone)
    const tenantId = club ?? clubs.peek(phone)
    const read = tenantId === undefined ? undefined : { tenantId, flag: readHandoff(phone, tenantId) }
    // a flag the turn never asks for (or a view never used) must not fail the process when its read fails
    read?.flag.catch(() => {})
    const { accounts, updatesOff } = await links
    return new PhoneView(accounts, new Set(updatesOff), async (other) => await readHandoff(phone, other), read)
  }
}
