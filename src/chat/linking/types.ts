import type { Role } from '../../tenants/roles.ts'
import type { LinkRecord, StaffLinkRecord } from './link-record.ts'

// The contract between the chat bot (src/chat/) and the linking side (src/chat/linking/).

/** A phone's link to one club's member account. */
export interface LinkedAccount {
  tenantId: string
  tenantName: string
  customerId: string
  email: string
  name: string
  role: Role
  /** The member's access token for calls made on their behalf; never logged, never answered. */
  token: string
  linkedAt: number
  /** Epoch ms after which the bot asks the member to log in again. */
  expiresAt: number
  /** The language the member chose in the bot for this club; unset: the club's. */
  locale?: 'es' | 'en'
}

/** A phone's links and the clubs whose chat updates it turned off, read together. */
export interface PhoneLinks {
  accounts: LinkedAccount[]
  /** Tenant ids of linked clubs whose order updates and reminders the phone does not get in the chat. */
  updatesOff: string[]
}

export interface LinkedAccountStore {
  /** Every club this phone is linked to (expired ones included: the bot decides what expiry means). */
  list (phone: string): Promise<LinkedAccount[]>
  /** `list` with each club's updates setting, in one read. */
  links (phone: string): Promise<PhoneLinks>
  put (phone: string, account: LinkedAccount): Promise<void>
  remove (phone: string, tenantId: string): Promise<void>
  /** The phones linked to this member of the club (none: an empty list). */
  phonesOf (tenantId: string, customerId: string): Promise<string[]>
  /** Whether the phone gets order updates and reminders in the chat for this club (default on). */
  updatesOn (phone: string, tenantId: string): Promise<boolean>
  setUpdates (phone: string, tenantId: string, on: boolean): Promise<void>
}

/** The login form may only be answered for a phone the bot sent it to in the last hour. */
export interface LoginFormInvites {
  markSent (phone: string): Promise<void>
  wasSent (phone: string): Promise<boolean>
}

/** What the bot offers the linking side: tell a phone's conversation it has just been linked. */
export interface ChatBot {
  accountLinked (phone: string): Promise<void>
}

/**
 * Link codes as the bot consumes them, sent from `phone`: single use; an unknown, expired or used code, or one a
 * club made for another phone, is a NOT_FOUND AppError.
 */
export interface LinkCodes {
  consume (code: string, phone: string): Promise<LinkRecord>
  /** A code a club makes for one of its members (src/club/members.ts): it links only from their phone on record. */
  create (code: string, record: StaffLinkRecord): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    linkCodes: LinkCodes
    linkedAccounts: LinkedAccountStore
    loginFormInvites: LoginFormInvites
    chatBot: ChatBot
  }
}
