import { randomBytes } from 'node:crypto'
import { newId } from '../ids.ts'
import type { InviteDoc, UserDoc } from '../model.ts'
import { duplicate, invalidData, notFound, unauthorized, unknownError, type MedusaError } from '../errors.ts'
import type { AcceptInviteInput, CreateInviteInput } from '../requests.ts'
import type { AuthContext } from '../tokens.ts'
import { INDEX, LOOKUP, nowIso, score, type CommerceContext } from './context.ts'
import { listDocs, loadDoc, mutate } from './repo.ts'
import { saveUser } from './accounts.ts'

// Medusa's invite flow: an admin invites an email (POST /admin/invites), the invitee registers an email/password
// identity (POST /auth/user/emailpass/register) and accepts with both tokens (POST /admin/invites/accept).
// Invites last a day, as Medusa's default. Here an invite's metadata says the role and club of the user it
// makes (Medusa's users have neither: the service's staff directory says them there).

const INVITE_TTL_MS = 24 * 3600_000

const inviteMissing = (id: string): MedusaError => notFound(`Invite with id: ${id} was not found`)
const newToken = (): string => randomBytes(32).toString('base64url')
const expiry = (): string => new Date(Date.now() + INVITE_TTL_MS).toISOString()

const tenantOfInvite = (invite: InviteDoc): string | undefined => typeof invite.metadata?.tenant_id === 'string' ? invite.metadata.tenant_id : undefined

/** Embedded only: a staff user invites only into their own clubs (a real Medusa's admins are not per club). */
function checkScope (actor: AuthContext, metadata: InviteDoc['metadata']): void {
  const tenant = metadata?.tenant_id
  if (tenant !== undefined && (typeof tenant !== 'string' || !actor.tenants.includes(tenant))) throw invalidData('Invites are only for your own clubs')
}

export const listInvites = async (ctx: CommerceContext): Promise<InviteDoc[]> => await listDocs(ctx.store, 'invite', INDEX.invites)

export async function createInvite (ctx: CommerceContext, actor: AuthContext, body: CreateInviteInput): Promise<InviteDoc> {
  checkScope(actor, body.metadata ?? null)
  if ((await listInvites(ctx)).some((i) => i.email === body.email && !i.accepted)) {
    throw duplicate(`Invite with email: ${body.email}, already exists.`)
  }
  if (await ctx.store.lookup(LOOKUP.authIdentity('user'), body.email) && (await listDocs(ctx.store, 'user', INDEX.users)).some((u) => u.email === body.email)) {
    throw invalidData(`User account for following email(s) already exist: ${body.email}`)
  }
  const now = nowIso()
  const invite: InviteDoc = {
    id: newId('invite'),
    email: body.email,
    accepted: false,
    token: newToken(),
    expires_at: expiry(),
    metadata: body.metadata ?? null,
    created_at: now,
    updated_at: now
  }
  if (!await ctx.store.create('invite', invite, [{ index: INDEX.invites, score: score(now) }], [{ name: LOOKUP.inviteToken, value: invite.token }])) {
    throw unknownError('Invite could not be stored')
  }
  return invite
}

/** POST /admin/invites/{id}/resend: a new token and a new day. */
export async function resendInvite (ctx: CommerceContext, actor: AuthContext, id: string): Promise<InviteDoc> {
  const current = await loadDoc(ctx.store, 'invite', id, () => inviteMissing(id))
  checkScope(actor, current.metadata)
  const token = newToken()
  if (!await ctx.store.claim(LOOKUP.inviteToken, token, id)) throw unknownError('Invite token could not be stored')
  return await mutate(ctx.store, 'invite', id, () => inviteMissing(id), (doc) => {
    doc.token = token
    doc.expires_at = expiry()
    return undefined
  })
}

/** POST /admin/invites/accept?token=: a registration token's identity becomes the invited user, once. */
export async function acceptInvite (
  ctx: CommerceContext, registration: { authIdentityId: string }, token: string | undefined, body: AcceptInviteInput
): Promise<UserDoc> {
  const id = token ? await ctx.store.lookup(LOOKUP.inviteToken, token) : undefined
  const invite = id ? (await ctx.store.get('invite', id))?.doc : undefined
  if (!invite || invite.token !== token || invite.accepted) throw unauthorized('Invalid invite token')
  if (Date.parse(invite.expires_at) <= Date.now()) throw unauthorized('The invite has expired')
  const identity = await loadDoc(ctx.store, 'auth_identity', registration.authIdentityId, () => notFound('Auth identity not found'))
  if (identity.actor_id) throw invalidData('Request already authenticated as a user.')
  if (identity.email !== invite.email || (body.email !== undefined && body.email !== invite.email)) throw invalidData('The email does not match the invite')
  // Accepting flips the invite first (a compare-and-set): of two accepts racing, one makes the user.
  await mutate(ctx.store, 'invite', invite.id, () => inviteMissing(invite.id), (doc) => {
    if (doc.accepted) throw unauthorized('Invalid invite token')
    doc.accepted = true
    return undefined
  })
  const tenant = tenantOfInvite(invite)
  const now = nowIso()
  const user: UserDoc = {
    id: newId('user'),
    email: invite.email,
    first_name: body.first_name ?? null,
    last_name: body.last_name ?? null,
    role: invite.metadata?.role === 'grower' ? 'grower' : 'admin',
    tenants: tenant ? [tenant] : [],
    metadata: null,
    created_at: now,
    updated_at: now,
  }
  await saveUser(ctx, user)
  await mutate(ctx.store, 'auth_identity', identity.id, () => notFound('Auth identity not found'), (doc) => {
    doc.actor_id = user.id
    return undefined
  })
  return user
}
