import { newId } from '../ids.ts'
import type { ActorType, AuthIdentityDoc, CustomerDoc, UserDoc } from '../model.ts'
import { hashPassword, verifyPassword } from '../passwords.ts'
import { signActorToken, type AuthContext, type Registration } from '../tokens.ts'
import { duplicate, invalidData, notFound, unauthorized, unknownError, type MedusaError } from '../errors.ts'
import type { CreateCustomerInput, Credentials, UpdateCustomerInput } from '../requests.ts'
import { creationOrder, INDEX, LOOKUP, nowIso, score, type CommerceContext } from './context.ts'
import { docsOf, listDocs, loadDoc, mutate } from './repo.ts'
import { mergeMetadata } from './catalog.ts'
import { completeByChannel, hasOrderIn } from './orders.ts'
import { listSalesChannels, tenantOf } from './setup.ts'

// Email/password identities, customers (members) and users (staff), and the tokens they log in with.

const customerMissing = (id: string): MedusaError => notFound(`Customer with id: ${id} was not found`)

/** The clubs a customer belongs to, kept in `metadata.clubs`. */
export function clubsOf (customer: CustomerDoc): string[] {
  const clubs = customer.metadata?.clubs
  return Array.isArray(clubs) ? clubs.filter((c): c is string => typeof c === 'string') : []
}

const fullName = (first: string | null, last: string | null): string | undefined => [first, last].filter(Boolean).join(' ') || undefined

async function identityOf (ctx: CommerceContext, actorType: ActorType, email: string): Promise<AuthIdentityDoc | undefined> {
  const id = await ctx.store.lookup(LOOKUP.authIdentity(actorType), email)
  return id ? (await ctx.store.get('auth_identity', id))?.doc : undefined
}

async function tokenFor (ctx: CommerceContext, identity: AuthIdentityDoc): Promise<string> {
  const base = { actorType: identity.actor_type, authIdentityId: identity.id, email: identity.email }
  if (!identity.actor_id) return await signActorToken(ctx.jwtSecret, { ...base, actorId: '' })
  if (identity.actor_type === 'customer') {
    const customer = await loadDoc(ctx.store, 'customer', identity.actor_id, () => customerMissing(identity.actor_id as string))
    return await signActorToken(ctx.jwtSecret, {
      ...base, actorId: customer.id, role: 'member', tenants: clubsOf(customer), name: fullName(customer.first_name, customer.last_name)
    })
  }
  const user = await loadDoc(ctx.store, 'user', identity.actor_id, () => notFound(`User with id: ${identity.actor_id} was not found`))
  return await signActorToken(ctx.jwtSecret, {
    ...base, actorId: user.id, role: user.role, tenants: user.tenants, name: fullName(user.first_name, user.last_name)
  })
}

/** POST /auth/{actor}/emailpass: a wrong email and a wrong password answer alike, after the same work. */
export async function login (ctx: CommerceContext, actorType: ActorType, { email, password }: Credentials): Promise<string> {
  const identity = await identityOf(ctx, actorType, email)
  const ok = await verifyPassword(password, identity?.password_hash)
  if (!identity || !ok) throw unauthorized('Invalid email or password')
  return await tokenFor(ctx, identity)
}

/** Creates an email/password identity (no actor yet); false when the email has one. */
export async function createIdentity (
  ctx: CommerceContext, actorType: ActorType, email: string, password: string, actorId: string | null
): Promise<AuthIdentityDoc | undefined> {
  if (await identityOf(ctx, actorType, email)) return undefined
  const now = nowIso()
  const identity: AuthIdentityDoc = {
    id: newId('authid'), actor_type: actorType, email, password_hash: await hashPassword(password), actor_id: actorId, created_at: now, updated_at: now
  }
  return await ctx.store.create('auth_identity', identity, [], [{ name: LOOKUP.authIdentity(actorType), value: email }]) ? identity : undefined
}

/** Sets the password of an email/password identity, making the identity when there is none. */
export async function setIdentityPassword (ctx: CommerceContext, actorType: ActorType, email: string, password: string, actorId: string | null): Promise<void> {
  if (await createIdentity(ctx, actorType, email, password, actorId)) return
  const identity = await identityOf(ctx, actorType, email)
  if (!identity) throw unknownError(`Identity of ${email} vanished while its password was set`)
  const hash = await hashPassword(password)
  await mutate(ctx.store, 'auth_identity', identity.id, () => notFound('Auth identity not found'), (doc) => {
    doc.password_hash = hash
    if (actorId) doc.actor_id = actorId
    return undefined
  })
}

/** POST /auth/{actor}/emailpass/register: a registration token, for POST /store/customers or an invite's accept. */
export async function register (ctx: CommerceContext, { email, password }: Credentials, actorType: ActorType = 'customer'): Promise<string> {
  const identity = await createIdentity(ctx, actorType, email, password, null)
  if (!identity) throw unauthorized('Identity with email already exists')
  return await tokenFor(ctx, identity)
}

/** POST /store/customers with a registration token: the customer, a member of the key's club. */
export async function createCustomer (ctx: CommerceContext, registration: Registration, clubs: string[], body: CreateCustomerInput): Promise<CustomerDoc> {
  if (registration.actorId) throw invalidData('Request already authenticated as a customer.')
  const identity = await loadDoc(ctx.store, 'auth_identity', registration.authIdentityId, () => notFound('Auth identity not found'))
  if (identity.actor_id) throw invalidData('Request already authenticated as a customer.')
  if (identity.email !== body.email) throw invalidData('The email does not match the registered identity')
  const now = nowIso()
  const customer: CustomerDoc = {
    id: newId('cus'),
    email: body.email,
    first_name: body.first_name ?? null,
    last_name: body.last_name ?? null,
    phone: body.phone ?? null,
    has_account: true,
    metadata: { ...(body.metadata ?? {}), clubs },
    created_at: now,
    updated_at: now,
  }
  const taken = await saveCustomer(ctx, customer) ? customer : await takeOverAdminMade(ctx, body.email, customer)
  if (!taken) throw duplicate(`A customer with email ${body.email} already exists`)
  await mutate(ctx.store, 'auth_identity', identity.id, () => notFound('Auth identity not found'), (doc) => {
    doc.actor_id = taken.id
    return undefined
  })
  return taken
}

/**
 * A customer an admin made (no account yet) becomes the account of whoever registers its email, keeping its
 * clubs: an admin registers a member, the member then sets a password. Undefined when it has an account.
 */
async function takeOverAdminMade (ctx: CommerceContext, email: string, registering: CustomerDoc): Promise<CustomerDoc | undefined> {
  const id = await ctx.store.lookup(LOOKUP.customerEmail, email)
  if (!id) return undefined
  let took = false
  const doc = await changeCustomer(ctx, id, (c) => {
    if (c.has_account) return
    took = true
    c.has_account = true
    c.first_name = registering.first_name ?? c.first_name
    c.last_name = registering.last_name ?? c.last_name
    c.phone = registering.phone ?? c.phone
    c.metadata = { ...c.metadata, clubs: [...new Set([...clubsOf(c), ...((registering.metadata?.clubs as string[] | undefined) ?? [])])] }
  })
  return took ? doc : undefined
}

/** POST /admin/customers: a customer without an account, in the clubs its metadata names. */
export async function createAdminCustomer (ctx: CommerceContext, body: CreateCustomerInput): Promise<CustomerDoc> {
  const now = nowIso()
  const customer: CustomerDoc = {
    id: newId('cus'),
    email: body.email,
    first_name: body.first_name ?? null,
    last_name: body.last_name ?? null,
    phone: body.phone ?? null,
    has_account: false,
    metadata: body.metadata ?? null,
    created_at: now,
    updated_at: now,
  }
  if (!await saveCustomer(ctx, customer)) throw duplicate(`Customer with email: ${body.email}, has_account: false, already exists.`)
  return customer
}

/** Stores a registered customer; false when the id or the email is taken. */
export async function saveCustomer (ctx: CommerceContext, customer: CustomerDoc): Promise<boolean> {
  const indexes = [INDEX.customers, ...clubsOf(customer).map(INDEX.customersOfClub)].map((index) => ({ index, score: score(customer.created_at) }))
  return await ctx.store.create('customer', customer, indexes, [{
    name: LOOKUP.customerEmail, value: customer.email
  }])
}

export async function saveUser (ctx: CommerceContext, user: UserDoc): Promise<boolean> {
  return await ctx.store.create('user', user, [{ index: INDEX.users, score: score(user.created_at) }], [])
}

export async function getCustomer (ctx: CommerceContext, id: string): Promise<CustomerDoc> {
  return await loadDoc(ctx.store, 'customer', id, () => customerMissing(id))
}

export async function getUser (ctx: CommerceContext, id: string): Promise<UserDoc> {
  return await loadDoc(ctx.store, 'user', id, () => notFound(`User with id: ${id} was not found`))
}

export async function listCustomers (ctx: CommerceContext): Promise<CustomerDoc[]> {
  return await listDocs(ctx.store, 'customer', INDEX.customers)
}

/**
 * The customers whose email is one of these, listed as `listCustomers` lists them (its index: creation time, then
 * id), found by their email's lookups instead of read all: every customer is made with exactly one of them (the
 * account's, or the guest's) in the same step, and keeps its email for good.
 */
export async function customersWithEmails (ctx: CommerceContext, emails: readonly string[]): Promise<CustomerDoc[]> {
  const unique = [...new Set(emails)]
  const ids = await Promise.all(unique.flatMap((email) => [LOOKUP.customerEmail, LOOKUP.guestEmail].map(async (name) => await ctx.store.lookup(name, email))))
  const found = await docsOf(ctx.store, 'customer', [...new Set(ids.filter((id) => id !== undefined))])
  return found.filter((c) => unique.includes(c.email)).sort(creationOrder())
}

/** A cart's customer: the logged-in one, else a guest record per email (as Medusa makes for guest carts). */
export async function customerForCart (ctx: CommerceContext, actor: AuthContext | undefined, email: string | undefined): Promise<CustomerDoc | undefined> {
  if (actor?.type === 'customer') return await getCustomer(ctx, actor.id)
  if (!email) return undefined
  // As Medusa's findOrCreateCustomerStep: a cart for the email of an account belongs to that account.
  const account = await ctx.store.lookup(LOOKUP.customerEmail, email)
  if (account) return await getCustomer(ctx, account)
  const existing = await ctx.store.lookup(LOOKUP.guestEmail, email)
  if (existing) return await getCustomer(ctx, existing)
  const now = nowIso()
  const guest: CustomerDoc = {
    id: newId('cus'), email, first_name: null, last_name: null, phone: null, has_account: false, metadata: null, created_at: now, updated_at: now
  }
  if (!await ctx.store.create('customer', guest, [{ index: INDEX.customers, score: score(now) }], [{ name: LOOKUP.guestEmail, value: email }])) {
    return await getCustomer(ctx, await ctx.store.lookup(LOOKUP.guestEmail, email) ?? guest.id)
  }
  return guest
}

export async function updateCustomer (ctx: CommerceContext, id: string, body: UpdateCustomerInput): Promise<CustomerDoc> {
  return await changeCustomer(ctx, id, (c) => {
    if (body.first_name !== undefined) c.first_name = body.first_name ?? null
    if (body.last_name !== undefined) c.last_name = body.last_name ?? null
    if (body.phone !== undefined) c.phone = body.phone ?? null
    c.metadata = mergeMetadata(c.metadata, body.metadata ?? undefined)
  })
}

/** Each club's sales channels (a channel's club is its metadata's tenant_id). */
async function channelsByClub (ctx: CommerceContext): Promise<{ byClub: Map<string, string[]>, all: string[] }> {
  const byClub = new Map<string, string[]>()
  const channels = await listSalesChannels(ctx)
  for (const c of channels) {
    const club = tenantOf(c)
    if (club !== undefined) byClub.set(club, [...(byClub.get(club) ?? []), c.id])
  }
  return { byClub, all: channels.map((c) => c.id) }
}

/**
 * Edits a customer and, in the same step, its entries in the clubs' indexes of customers (`INDEX.customersOfClub`:
 * a club's members, and the customers without an account that ordered in its channels). A club it leaves keeps it
 * while it has no account and an order there (checked in that step: an order completed meanwhile counts); a
 * customer that gets an account leaves every club it is no member of.
 */
async function changeCustomer (ctx: CommerceContext, id: string, edit: (c: CustomerDoc) => void): Promise<CustomerDoc> {
  const channels = await channelsByClub(ctx)
  await completeByChannel(ctx, id, channels.all)
  return await mutate(ctx.store, 'customer', id, () => customerMissing(id), (c) => {
    const before = { clubs: clubsOf(c), account: c.has_account }
    edit(c)
    const after = clubsOf(c)
    const addTo = after.filter((club) => !before.clubs.includes(club)).map((club) => ({ index: INDEX.customersOfClub(club), score: score(c.created_at) }))
    const left = before.account || !c.has_account ? before.clubs : [...new Set([...before.clubs, ...channels.byClub.keys()])]
    const removeFrom = left.filter((club) => !after.includes(club)).map((club) => ({
      index: INDEX.customersOfClub(club),
      unlessAnyOf: c.has_account ? [] : (channels.byClub.get(club) ?? []).map((channel) => INDEX.ordersOfCustomerIn(c.id, channel)),
    }))
    return { addTo, removeFrom }
  })
}

/**
 * Fills a club's index of customers with the customers made before it existed, once (a lookup marks it done):
 * every customer of the backend is read that once. Customers written meanwhile are listed by their own writes; one
 * that leaves the club while the fill runs may stay listed until its next change (a one-off, at the first list).
 */
async function fillClubIndex (ctx: CommerceContext, club: string): Promise<void> {
  // read each time, not kept: deleting the marker fills the index again (docs/operations.md, rolling updates)
  if (await ctx.store.lookup(LOOKUP.customersOfClubFilled, club)) return
  const channels = await channelsByClub(ctx)
  const own = channels.byClub.get(club) ?? []
  const everyone = await listCustomers(ctx)
  const seen = await Promise.all(everyone.map(async (c) => clubsOf(c).includes(club) || (!c.has_account && await hasOrderIn(ctx, c.id, own, channels.all))))
  await ctx.store.addToIndexes(everyone.filter((_, i) => seen[i]).map((c) => ({ index: INDEX.customersOfClub(club), id: c.id, score: score(c.created_at) })))
  await ctx.store.claim(LOOKUP.customersOfClubFilled, club, 'filled')
}

export interface CustomerFilter {
  /** Contained (any case) in the email, a name or the phone. */
  q?: string | undefined
  has_account?: 'true' | 'false' | undefined
}

export const matchesCustomer = (f: CustomerFilter) => (c: CustomerDoc): boolean => {
  const needle = f.q?.toLowerCase()
  return (f.has_account === undefined || String(c.has_account) === f.has_account) &&
    (!needle || [c.email, c.first_name, c.last_name, c.phone].some((t) => t?.toLowerCase().includes(needle)))
}

/**
 * A page of the customers the staff of these clubs see (their members, and customers without an account that
 * ordered in their channels) that match the filter, listed as `listCustomers` lists them, and how many match:
 * read from the clubs' indexes, a page of one club's with no filter, not every customer of the backend.
 */
export async function customersOfClubs (
  ctx: CommerceContext, clubs: readonly string[], filter: CustomerFilter, page: { offset: number, limit: number }
): Promise<{ customers: CustomerDoc[], count: number }> {
  const unique = [...new Set(clubs)]
  await Promise.all(unique.map(async (club) => await fillClubIndex(ctx, club)))
  const only = unique.length === 1 ? unique[0] : undefined
  if (only !== undefined && !filter.q && filter.has_account === undefined) {
    const found = await ctx.store.page(INDEX.customersOfClub(only), page.offset, page.limit, false)
    return { customers: await docsOf(ctx.store, 'customer', found.ids), count: found.total }
  }
  const ids = [...new Set((await Promise.all(unique.map(async (club) => await ctx.store.ids(INDEX.customersOfClub(club))))).flat())]
  const matching = (await docsOf(ctx.store, 'customer', ids)).filter(matchesCustomer(filter)).sort(creationOrder())
  return { customers: matching.slice(page.offset, page.offset + page.limit), count: matching.length }
}
