import type { FastifyInstance } from 'fastify'
import type { CommerceAccess } from '../orders/commerce-access.ts'
import { memberRoutes } from './member-routes.ts'
import { MemberService } from './members.ts'
import { createOneUseTokens } from './one-use-tokens.ts'
import { StaffService } from './staff.ts'
import { staffRoutes } from './staff-routes.ts'

/** A club's people run by its admins: staff (and members). Called from the orders plugin, which owns the commerce access. */
export async function registerClubPeople (app: FastifyInstance, access: CommerceAccess): Promise<void> {
  const tokens = createOneUseTokens(app.redis)
  await app.register(staffRoutes, { staff: new StaffService({ tenants: app.tenants, access, tokens }) })
  // The chat-linking plugin registers after this one: its code store is looked up when a code is made.
  const members = new MemberService({ tenants: app.tenants, access, tokens, linkCodes: () => app.linkCodes, jwtSecret: app.config.jwtSecret })
  await app.register(memberRoutes, { members })
}
