import { isDeepStrictEqual } from 'node:util'
import { operatorActor } from '../auth/actor.ts'
import { AppError, conflict, notFound, validationError } from '../errors.ts'
import { clubNameKey, type Tenant } from '../tenants/model.ts'
import type { TenantStore } from '../tenants/store.ts'
import { provisionCommerce, type CommerceSetup } from './provision.ts'
import { clubRecord, clubSpecSchema, specOf, type ClubSpecInput } from '../tenants/spec.ts'
import type { StaffInvite, StaffService } from './staff.ts'

// What `npm run club` does, free of argv and process: create a club end to end, or bring one in line with
// what the operator says now. The tenant record is written last, so a run that failed upstream leaves no club
// behind and is finished by running it again; everything upstream is found again rather than made twice.

export interface OperatorDeps {
  tenants: TenantStore
  setup: CommerceSetup
  staff: StaffService
  progress: (line: string) => void
}

export interface FirstAdmin { email: string, name: string }

export interface OperatorResult {
  tenant: Tenant
  /** Fields of the record that changed (all of them on create). */
  changed: string[]
  invite?: { invite: StaffInvite, token: string }
}

function parseSpec (input: ClubSpecInput) {
  const parsed = clubSpecSchema.safeParse(input)
  if (!parsed.success) throw validationError(parsed.error, 'Invalid club')
  return parsed.data
}

async function checkAdmin (deps: OperatorDeps, tenantId: string, admin: FirstAdmin): Promise<boolean> {
  const staff = await deps.tenants.getStaff(admin.email)
  if (!staff) return true
  if (staff.tenants.includes(tenantId)) return false
  throw conflict(`${admin.email} is already staff of ${staff.tenants.join(', ')}`)
}

export async function createClub (deps: OperatorDeps, input: ClubSpecInput, admin: FirstAdmin): Promise<OperatorResult> {
  const spec = parseSpec(input)
  if (await deps.tenants.get(spec.id)) throw conflict(`Club ${spec.id} already exists (use update to change it)`)
  const key = clubNameKey(spec.name)
  const namesake = (await deps.tenants.list()).find((t) => clubNameKey(t.name) === key)
  if (namesake) throw conflict(`Club ${namesake.id} is already named ${namesake.name}: choose another name`)
  await checkAdmin(deps, spec.id, admin)
  const { settings } = await provisionCommerce(deps.setup, spec, undefined, deps.progress)
  const tenant = clubRecord(spec, settings)
  const invite = await deps.staff.invite(operatorActor(tenant), { ...admin, role: 'admin' })
  deps.progress(`first admin ${admin.email} invited`)
  if (!await deps.tenants.create(tenant)) throw conflict(`Club ${spec.id} was created meanwhile by someone else`)
  return { tenant, changed: Object.keys(tenant), invite }
}

export async function updateClub (deps: OperatorDeps, id: string, changes: Partial<ClubSpecInput>, admin?: FirstAdmin): Promise<OperatorResult> {
  const current = await deps.tenants.get(id)
  if (!current) throw notFound(`Club ${id}`)
  const spec = parseSpec({ ...specOf(current), ...changes, id })
  const inviteAdmin = admin ? await checkAdmin(deps, id, admin) : false
  const { settings } = await provisionCommerce(deps.setup, spec, current.commerce, deps.progress)
  const made = clubRecord(spec, { ...settings, ...(current.commerce?.baseUrl ? { baseUrl: current.commerce.baseUrl } : {}) })
  // Rules change only when a preset is named: what the club's admins adjusted stays otherwise.
  const wanted = spec.rules || !current.rules ? made : { ...made, rules: current.rules }
  const changed = (Object.keys(wanted) as Array<keyof Tenant>).filter((k) => !isDeepStrictEqual(wanted[k], current[k]))
  const tenant = changed.length > 0 ? await deps.tenants.update(id, () => wanted) : current
  if (!tenant) throw notFound(`Club ${id}`)
  const invite = admin && inviteAdmin ? await deps.staff.invite(operatorActor(tenant), { ...admin, role: 'admin' }) : undefined
  return { tenant, changed, ...(invite ? { invite } : {}) }
}

/** The record as shown to an operator: the backend password is never printed. */
export function shownClub (tenant: Tenant): Record<string, unknown> {
  return { ...tenant, ...(tenant.commerce ? { commerce: { ...tenant.commerce, adminPassword: '***' } } : {}) }
}

/** Exit codes of the command: 2 bad input, 3 conflict, 4 not found, 1 anything else (the backend failed...). */
export function exitCodeOf (err: unknown): number {
  if (!(err instanceof AppError)) return 1
  if (err.statusCode === 409) return 3
  if (err.statusCode === 404) return 4
  if (err.statusCode === 400) return 2
  return 1
}
