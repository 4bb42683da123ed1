import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { requireRole, type Actor } from '../auth/actor.ts'
import { signAccessToken } from '../auth/tokens.ts'
import { AppError, conflict, notFound } from '../errors.ts'
import type { CommerceAccess } from '../commerce/access.ts'
import { customerTenants, mapMember } from '../orders/mapping.ts'
import type { Member } from '../orders/schemas.ts'
import { customerAnswer, customersAnswer, type UpstreamCustomer } from '../commerce/upstream.ts'
import type { LinkCodes, LinkedAccountStore } from '../chat/linking/types.ts'
import { LINK_CODE_TTL_MS, phoneDigits } from '../chat/linking/link-record.ts'
import type { Tenant } from '../tenants/model.ts'
import type { TenantStore } from '../tenants/store.ts'
import type { OneUseTokens } from './one-use-tokens.ts'
import type { DispensingService, StandingPatch } from '../dispensing/service.ts'
import type { Standing } from '../dispensing/standing.ts'
import { CLUB_ADMINS } from './roles.ts'

// Members registered by a club's admins. Upstream a member is a customer of the club's backend whose
// `metadata.clubs` names the club (as the demo's are). Without a password yet, the member gets a single-use
// password token; setting it registers their email/password identity upstream and makes the customer theirs.

const PASSWORD_TOKEN_TTL_MS = 72 * 3600_000
// Membership lives in customer metadata, which the backend cannot filter on: the list reads in pages, up to a bound.
const MEMBER_SCAN_PAGE = 100
const MEMBER_SCAN_MAX = 5000
// The bot acts for a linked member with this token, as it does with one from a web login.
const CHAT_TOKEN_TTL_S = 24 * 3600

const passwordRecord = z.object({ tenantId: z.string(), customerId: z.string(), email: z.string(), expiresAt: z.number() })
type PasswordRecord = z.infer<typeof passwordRecord>
const tokenAnswer = z.object({ token: z.string().min(1) })

export interface NewMember { email: string, firstName: string, lastName: string, phone?: string | undefined }

/** What an admin changes of a member: names and phone upstream, the standing here. */
export interface MemberPatch extends StandingPatch {
  firstName?: string | undefined
  lastName?: string | undefined
  phone?: string | null | undefined
}

export interface MemberDeps {
  tenants: TenantStore
  access: CommerceAccess
  tokens: OneUseTokens
  linkCodes: () => LinkCodes
  jwtSecret: string
  dispensing: DispensingService
  /** The chat's links, conversations and the notices: plugins registered after this one, looked up when used. */
  linkedAccounts: () => LinkedAccountStore
  conversations: () => { forget: (tenantId: string, phone: string) => Promise<boolean> }
  notices: () => { forget: (scope: { tenantId: string, recipientId: string }) => Promise<number> }
}

/** What leaving or an erasure did, counted. */
export interface Departure { memberId: string, standing: Standing, chatLinksRemoved: number }
export interface Erasure extends Departure { conversationsErased: number, notificationsErased: number }

const alreadyRegistered = (email: string): AppError => conflict(`${email} is already registered`)

const invalidPasswordToken = (): AppError => new AppError('INVALID_TOKEN', 'The password token is unknown, expired or already used')

export class MemberService {
  constructor (private readonly deps: MemberDeps) {}

  private upstream (tenant: Tenant) {
    const { settings } = this.deps.access.medusaFor(tenant)
    const admin = { kind: 'admin' as const, email: settings.adminEmail, password: settings.adminPassword }
    return { client: this.deps.access.client, settings, admin }
  }

  private async byEmail (tenant: Tenant, email: string): Promise<UpstreamCustomer | undefined> {
    const { client, settings, admin } = this.upstream(tenant)
    const {
      customers
    } = await client.call(settings.baseUrl, 'GET', '/admin/customers', { caller: admin, query: { email, limit: 10 }, schema: customersAnswer })
    return customers.find((c) => c.email?.toLowerCase() === email && (c.has_account ?? true)) ?? customers.find((c) => c.email?.toLowerCase() === email)
  }

  private async setClubs (tenant: Tenant, customerId: string, clubs: string[]): Promise<UpstreamCustomer> {
    const { client, settings, admin } = this.upstream(tenant)
    return (await client.call(settings.baseUrl, 'POST', `/admin/customers/${encodeURIComponent(customerId)}`, {
      caller: admin, body: { metadata: { clubs } }, schema: customerAnswer
    })).customer
  }

  /** A page of the club's members whose email or name contains `q` (any case), and how many match. */
  async list (actor: Actor, filter: { q?: string | undefined, limit: number, offset: number }): Promise<{ members: Member[], count: number }> {
    requireRole(actor, CLUB_ADMINS)
    const { tenant } = actor
    const medusa = this.deps.access.medusaFor(tenant)
    const members: UpstreamCustomer[] = []
    for (let offset = 0; offset < MEMBER_SCAN_MAX; offset += MEMBER_SCAN_PAGE) {
      const page = await medusa.listCustomers({ limit: MEMBER_SCAN_PAGE, offset })
      members.push(...page.customers.filter((c) => customerTenants(c).includes(tenant.id)))
      if (page.customers.length < MEMBER_SCAN_PAGE || offset + MEMBER_SCAN_PAGE >= page.count) break
    }
    const needle = filter.q?.toLowerCase()
    // a phone as staff type it (+54 9 11 2233-4455, 11 2233 4455): its digits, in the digits on record
    const digits = needle && /^[0-9 +()-]+$/.test(needle) ? needle.replace(/[^0-9]/g, '') : ''
    const matches = (m: UpstreamCustomer): boolean =>
      [m.email, m.first_name, m.last_name, [m.first_name, m.last_name].join(' ')].some((t) => t?.toLowerCase().includes(needle ?? '')) ||
      (digits.length >= 4 && (m.phone ?? '').replace(/[^0-9]/g, '').includes(digits))
    const found = needle ? members.filter(matches) : members
    return { members: found.slice(filter.offset, filter.offset + filter.limit).map(mapMember), count: found.length }
  }

  /**
   * 409 when the email is already registered (in this club, or as another club's member: customers are global
   * upstream), one answer either way: it never tells a club who belongs to another.
   */
  async register (actor: Actor, input: NewMember): Promise<{ member: Member, passwordToken: string | null, standing: Standing }> {
    requireRole(actor, CLUB_ADMINS)
    const { tenant } = actor
    const email = input.email.trim().toLowerCase()
    const existing = await this.byEmail(tenant, email)
    if (existing) throw alreadyRegistered(email)
    const { client, settings, admin } = this.upstream(tenant)
    let customer: UpstreamCustomer
    try {
      customer = (await client.call(settings.baseUrl, 'POST', '/admin/customers', {
        caller: admin,
        body: {
          email, first_name: input.firstName, last_name: input.lastName, ...(input.phone ? { phone: input.phone } : {}), metadata: { clubs: [tenant.id] }
        },
        schema: customerAnswer,
      })).customer
    } catch (err) {
      // A customer this club's login cannot see (another club's, on the embedded backend).
      if (err instanceof AppError && err.code === 'CONFLICT') throw alreadyRegistered(email)
      throw err
    }
    const passwordToken = (customer.has_account ?? true) ? null : (await this.issuePasswordToken(tenant, customer.id, email)).passwordToken
    const standing = await this.deps.dispensing.startStanding(tenant, customer.id)
    return { member: mapMember(customer), passwordToken, standing }
  }

  private async issuePasswordToken (tenant: Tenant, customerId: string, email: string): Promise<{ passwordToken: string, expiresAt: string }> {
    const expiresAt = Date.now() + PASSWORD_TOKEN_TTL_MS
    const record: PasswordRecord = { tenantId: tenant.id, customerId, email, expiresAt }
    return { passwordToken: await this.deps.tokens.issue('member-password', record, PASSWORD_TOKEN_TTL_MS), expiresAt: new Date(expiresAt).toISOString() }
  }

  /** A new password token for a member of the club who has not set a password yet (the first one expired or got lost). */
  async reissuePasswordToken (actor: Actor, customerId: string): Promise<{ passwordToken: string, expiresAt: string }> {
    requireRole(actor, CLUB_ADMINS)
    const customer = await this.memberOf(actor.tenant, customerId)
    if (customer.has_account ?? true) throw conflict('The member has a password already: they log in with it')
    return await this.issuePasswordToken(actor.tenant, customer.id, (customer.email ?? '').toLowerCase())
  }

  private async memberOf (tenant: Tenant, customerId: string): Promise<UpstreamCustomer> {
    const { client, settings, admin } = this.upstream(tenant)
    const { customer } = await client.call(settings.baseUrl, 'GET', `/admin/customers/${encodeURIComponent(customerId)}`, {
      caller: admin, schema: customerAnswer
    })
    if (!customerTenants(customer).includes(tenant.id)) throw notFound(`Member ${customerId}`)
    return customer
  }

  /** The member as the club knows them: the backend's record and the standing kept here. */
  async get (actor: Actor, customerId: string): Promise<{ member: Member, standing: Standing }> {
    requireRole(actor, CLUB_ADMINS)
    const customer = await this.memberOf(actor.tenant, customerId)
    return { member: mapMember(customer), standing: await this.deps.dispensing.standing(actor, customer.id) }
  }

  /** Names and phone go to the backend, the rest to the standing; the standing is checked first, so a bad one changes nothing. */
  async change (actor: Actor, customerId: string, patch: MemberPatch): Promise<{ member: Member, standing: Standing }> {
    requireRole(actor, CLUB_ADMINS)
    const { firstName, lastName, phone, ...standingPatch } = patch
    let customer = await this.memberOf(actor.tenant, customerId)
    const standing = Object.keys(standingPatch).length > 0
      ? await this.deps.dispensing.changeStanding(actor, customer.id, standingPatch)
      : await this.deps.dispensing.standing(actor, customer.id)
    const names = {
      ...(firstName !== undefined ? { first_name: firstName } : {}),
      ...(lastName !== undefined ? { last_name: lastName } : {}),
      ...(phone !== undefined ? { phone } : {})
    }
    if (Object.keys(names).length > 0) {
      const { client, settings, admin } = this.upstream(actor.tenant)
      customer = (await client.call(settings.baseUrl, 'POST', `/admin/customers/${encodeURIComponent(customer.id)}`, {
        caller: admin, body: names, schema: customerAnswer
      })).customer
    }
    return { member: mapMember(customer), standing }
  }

  /**
   * The member leaves the club: the backend's customer no longer names it (their account stays, for other clubs),
   * the standing ends and their chat links to the club go. 404 for anyone not a member of this club.
   */
  async leave (actor: Actor, customerId: string): Promise<Departure> {
    requireRole(actor, CLUB_ADMINS)
    const { tenant } = actor
    const customer = await this.memberOf(tenant, customerId)
    await this.setClubs(tenant, customer.id, customerTenants(customer).filter((id) => id !== tenant.id))
    const standing = await this.deps.dispensing.endStanding(actor, customer.id)
    const phones = await this.unlink(tenant.id, customer.id)
    return { memberId: customer.id, standing, chatLinksRemoved: phones.length }
  }

  private async unlink (tenantId: string, customerId: string): Promise<string[]> {
    const links = this.deps.linkedAccounts()
    const phones = await links.phonesOf(tenantId, customerId)
    await Promise.all(phones.map(async (phone) => { await links.remove(phone, tenantId) }))
    return phones
  }

  /**
   * Erases the club's personal data of a member or former member (a standing kept here or a membership upstream
   * names them; 404 otherwise): chat links to the club, the club's conversations with their phones (linked ones
   * and the one on record), their notices in the club, the standing's personal fields. The dispensing record keeps
   * name and birth year until its retention ends; the backend's customer is shared with other clubs and stays.
   */
  async erase (actor: Actor, customerId: string): Promise<Erasure> {
    requireRole(actor, CLUB_ADMINS)
    const { tenant } = actor
    const known = (await this.deps.dispensing.standingOf(tenant, customerId)).updatedAt !== null
    const customer = await this.memberOf(tenant, customerId).catch((err: unknown) => {
      // a former member: the backend no longer names the club, the standing kept here does
      if (known && err instanceof AppError && err.code === 'NOT_FOUND') return undefined
      throw err
    })
    const phoneOnRecord = customer?.phone ? phoneDigits(customer.phone) : undefined
    const linked = await this.unlink(tenant.id, customerId)
    const phones = [...new Set([...linked, ...(phoneOnRecord ? [phoneOnRecord] : [])])]
    const forgotten = await Promise.all(phones.map(async (phone) => await this.deps.conversations().forget(tenant.id, phone)))
    const notificationsErased = await this.deps.notices().forget({ tenantId: tenant.id, recipientId: customerId })
    const standing = await this.deps.dispensing.eraseStanding(actor, customerId)
    return { memberId: customerId, standing, chatLinksRemoved: linked.length, conversationsErased: forgotten.filter(Boolean).length, notificationsErased }
  }

  /** POST /auth/customer/emailpass/update with a password token: the member's first password, once. */
  async setPassword (token: string, password: string): Promise<void> {
    const taken = passwordRecord.safeParse(await this.deps.tokens.take('member-password', token))
    if (!taken.success) throw invalidPasswordToken()
    try {
      await this.claimAccount(taken.data, password)
    } catch (err) {
      await this.deps.tokens.restore('member-password', token, taken.data, taken.data.expiresAt)
      throw err
    }
  }

  private async claimAccount (record: PasswordRecord, password: string): Promise<void> {
    const tenant = await this.deps.tenants.get(record.tenantId)
    if (!tenant) throw notFound(`Tenant ${record.tenantId}`)
    const { client, settings, admin } = this.upstream(tenant)
    const made = (await client.call(settings.baseUrl, 'GET', `/admin/customers/${encodeURIComponent(record.customerId)}`, {
      caller: admin, schema: customerAnswer
    })).customer
    let registration: string
    try {
      ;({ token: registration } = await client.call(settings.baseUrl, 'POST', '/auth/customer/emailpass/register', {
        caller: { kind: 'none' }, body: { email: record.email, password }, schema: tokenAnswer,
      }))
    } catch (err) {
      if (err instanceof AppError && err.code === 'BACKEND_ERROR' && /credentials/.test(err.message)) {
        throw conflict(
        `${record.email} already has a password: log in`
        )
      }
      throw err
    }
    const { customer } = await client.call(settings.baseUrl, 'POST', '/store/customers', {
      caller: { kind: 'store', publishableKey: settings.publishableKey, token: registration },
      body: {
        email: record.email, first_name: made.first_name ?? undefined, last_name: made.last_name ?? undefined, ...(made.phone ? { phone: made.phone } : {})
      },
      schema: customerAnswer,
    })
    // The backend may take the admin-made customer over (the embedded one does) or make a second one (then the
    // clubs move to the account, and the admin-made record leaves them).
    await this.setClubs(tenant, customer.id, [...new Set([...customerTenants(customer), ...customerTenants(made)])])
    if (customer.id !== made.id) await this.setClubs(tenant, made.id, [])
  }

  /** A link code for a member registered with a phone: typed in the chat, it links that chat without a password. */
  async chatLink (actor: Actor, customerId: string): Promise<{ code: string, text: string, phone: string, expiresAt: string }> {
    requireRole(actor, CLUB_ADMINS)
    const { tenant } = actor
    const customer = await this.memberOf(tenant, customerId)
    if (!customer.phone) throw new AppError('VALIDATION_ERROR', 'The member has no phone: add one first', { status: 422 })
    const member = mapMember(customer)
    const name = [member.firstName, member.lastName].filter(Boolean).join(' ') || member.email
    const token = await signAccessToken(
      this.deps.jwtSecret, { sub: customer.id, role: 'member', tenants: [tenant.id], email: member.email, name }, CHAT_TOKEN_TTL_S
    )
    const code = randomUUID()
    // Only the member's own phone may use it: whoever holds the code (the admin who made it) can link no other.
    await this.deps.linkCodes().create(code, {
      customerId: customer.id, tenantId: tenant.id, tenantName: tenant.name, email: member.email, name, token, phone: phoneDigits(customer.phone)
    })
    // What the member sends the bot (the bot takes `LINK-<code>` in any state).
    return { code, text: `LINK-${code}`, phone: customer.phone, expiresAt: new Date(Date.now() + LINK_CODE_TTL_MS).toISOString() }
  }
}
