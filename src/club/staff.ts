import { z } from 'zod'
import { requireRole, type Actor } from '../auth/actor.ts'
import { AppError, conflict, notFound } from '../errors.ts'
import type { CommerceAccess } from '../commerce/access.ts'
import type { Medusa } from '../commerce/medusa.ts'
import type { Staff, Tenant } from '../tenants/model.ts'
import type { StaffRole, TenantStore } from '../tenants/store.ts'
import type { OneUseTokens } from './one-use-tokens.ts'
import { CLUB_ADMINS } from './roles.ts'

// A club's staff, run by its admins. An invite is Medusa's invite upstream (the backend checks staff passwords)
// and a single-use token of ours for the invitee: the upstream invite token never leaves the service. Accepting
// registers the invitee's password upstream, accepts the upstream invite, then adds them to the directory.

const INVITE_TTL_MS = 24 * 3600_000

const inviteRecord = z.object({
  tenantId: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(['admin', 'grower']),
  upstreamToken: z.string(),
  expiresAt: z.number(),
})
type InviteRecord = z.infer<typeof inviteRecord>

const upstreamInvite = z.object({ id: z.string(), email: z.string(), accepted: z.boolean().optional(), token: z.string(), expires_at: z.string().optional() })
  .loose()
const inviteAnswer = z.object({ invite: upstreamInvite })
const invitesAnswer = z.object({ invites: z.array(z.object({ id: z.string(), email: z.string(), accepted: z.boolean().optional() }).loose()) })
const tokenAnswer = z.object({ token: z.string().min(1) })
const userAnswer = z.object({ user: z.object({ id: z.string().min(1) }).loose() })

export interface StaffInvite {
  email: string
  name: string
  role: StaffRole
  tenantId: string
  expiresAt: string
}

// One answer whether the email is staff here, of another club, or has a login or an invite elsewhere: an invite
// never tells a club who belongs to another.
const cannotInvite = (email: string): AppError => conflict(`${email} cannot be invited: it is already staff, or has a login or an invite`)

const invalidInviteToken = (): AppError => new AppError('INVALID_TOKEN', 'The invite token is unknown, expired or already used')

export interface StaffDeps {
  tenants: TenantStore
  access: CommerceAccess
  tokens: OneUseTokens
  /**
   * Tells every instance the staff member's access changed: their open streams end (src/sse.ts). The operator's
   * command, which only invites, has no streams to tell.
   */
  accessChanged?: (staffId: string) => Promise<void>
}

export class StaffService {
  constructor (private readonly deps: StaffDeps) {}

  async list (actor: Actor): Promise<Staff[]> {
    requireRole(actor, CLUB_ADMINS)
    return await this.deps.tenants.listStaff(actor.tenant.id)
  }

  /** A single-use token for the invitee, valid a day; 409 when the email is already staff (here or elsewhere), one answer. */
  async invite (actor: Actor, input: { email: string, name: string, role: StaffRole }): Promise<{ invite: StaffInvite, token: string }> {
    requireRole(actor, CLUB_ADMINS)
    const { tenant } = actor
    const email = input.email.trim().toLowerCase()
    if (await this.deps.tenants.getStaff(email)) throw cannotInvite(email)
    const upstream = await this.upstreamInvite(this.deps.access.medusaFor(tenant), email, tenant.id, input.role)
    const expiresAt = Math.min(Date.now() + INVITE_TTL_MS, upstream.expires_at ? Date.parse(upstream.expires_at) : Infinity)
    const record: InviteRecord = { tenantId: tenant.id, email, name: input.name, role: input.role, upstreamToken: upstream.token, expiresAt }
    const token = await this.deps.tokens.issue('staff-invite', record, expiresAt - Date.now())
    return { invite: { email, name: input.name, role: input.role, tenantId: tenant.id, expiresAt: new Date(expiresAt).toISOString() }, token }
  }

  /** Medusa keeps one open invite per email: one left by an earlier try is sent again (a new token), not refused. */
  private async upstreamInvite (medusa: Medusa, email: string, tenantId: string, role: StaffRole): Promise<z.infer<typeof upstreamInvite>> {
    const { client, settings } = this.clientOf(medusa)
    const admin = { kind: 'admin' as const, email: settings.adminEmail, password: settings.adminPassword }
    const { invites } = await client.call(settings.baseUrl, 'GET', '/admin/invites', {
      caller: admin, query: { limit: 1000, fields: 'id,email,accepted' }, schema: invitesAnswer
    })
    const open = invites.find((i) => i.email.toLowerCase() === email && i.accepted !== true)
    if (open) {
      return (await client.call(settings.baseUrl, 'POST', `/admin/invites/${encodeURIComponent(open.id)}/resend`, {
        caller: admin, schema: inviteAnswer
      })).invite
    }
    try {
      return (await client.call(settings.baseUrl, 'POST', '/admin/invites', {
        caller: admin, body: { email, metadata: { tenant_id: tenantId, role } }, schema: inviteAnswer
      })).invite
    } catch (err) {
      // An open invite this login cannot see (another club's, on the embedded backend) or a user that exists: the
      // email, checked here, is all the backend could refuse.
      if (err instanceof AppError && (err.code === 'CONFLICT' || err.code === 'VALIDATION_ERROR')) throw cannotInvite(email)
      throw err
    }
  }

  private clientOf (medusa: Medusa) {
    return { client: this.deps.access.client, settings: medusa.settings }
  }

  /** The invitee's password set upstream and the invite accepted, once; then they are staff of the club. */
  async accept (token: string, password: string): Promise<Staff> {
    const taken = inviteRecord.safeParse(await this.deps.tokens.take('staff-invite', token))
    if (!taken.success) throw invalidInviteToken()
    const record = taken.data
    try {
      return await this.join(record, password)
    } catch (err) {
      // Nothing was made: the invitee may try again with the same token while it lasts.
      await this.deps.tokens.restore('staff-invite', token, record, record.expiresAt)
      throw err
    }
  }

  private async join (record: InviteRecord, password: string): Promise<Staff> {
    const tenant = await this.deps.tenants.get(record.tenantId)
    if (!tenant) throw notFound(`Tenant ${record.tenantId}`)
    if (await this.deps.tenants.getStaff(record.email)) throw conflict(`${record.email} is already staff`)
    const { client, settings } = this.clientOf(this.deps.access.medusaFor(tenant))
    let registration: string
    try {
      ;({ token: registration } = await client.call(settings.baseUrl, 'POST', '/auth/user/emailpass/register', {
        caller: { kind: 'none' }, body: { email: record.email, password }, schema: tokenAnswer,
      }))
    } catch (err) {
      // Medusa answers 401 when the email already has a user identity.
      if (err instanceof AppError && err.code === 'BACKEND_ERROR' && /credentials/.test(err.message)) {
        throw conflict(
        `${record.email} already has a login at the club's commerce backend`
        )
      }
      throw err
    }
    const [firstName = record.name, ...rest] = record.name.split(' ')
    const { user } = await client.call(settings.baseUrl, 'POST', '/admin/invites/accept', {
      caller: { kind: 'store', publishableKey: settings.publishableKey, token: registration },
      query: { token: record.upstreamToken },
      body: { email: record.email, first_name: firstName, last_name: rest.join(' ') },
      schema: userAnswer,
    })
    const staff: Staff = { id: user.id, email: record.email, name: record.name, role: record.role, tenants: [record.tenantId] }
    await this.deps.tenants.putStaff(staff)
    return staff
  }

  async changeRole (actor: Actor, staffId: string, role: StaffRole): Promise<Staff> {
    requireRole(actor, CLUB_ADMINS)
    const staff = await this.find(actor.tenant, staffId)
    this.check(await this.deps.tenants.changeStaff(actor.tenant.id, staff.email, role), staffId)
    await this.deps.accessChanged?.(staff.id)
    return { ...staff, role }
  }

  async remove (actor: Actor, staffId: string): Promise<void> {
    requireRole(actor, CLUB_ADMINS)
    const staff = await this.find(actor.tenant, staffId)
    this.check(await this.deps.tenants.changeStaff(actor.tenant.id, staff.email, null), staffId)
    await this.deps.accessChanged?.(staff.id)
  }

  private async find (tenant: Tenant, staffId: string): Promise<Staff> {
    const staff = (await this.deps.tenants.listStaff(tenant.id)).find((s) => s.id === staffId)
    if (!staff) throw notFound(`Staff member ${staffId}`)
    return staff
  }

  private check (change: 'ok' | 'missing' | 'last-admin', staffId: string): void {
    if (change === 'missing') throw notFound(`Staff member ${staffId}`)
    if (change === 'last-admin') throw conflict('A club keeps at least one admin: make another admin first')
  }
}
