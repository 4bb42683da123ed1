import fp from 'fastify-plugin'
import { keys } from '../stores/keys.ts'
import { memberRoutes } from './member-routes.ts'
import { MemberService } from './members.ts'
import { createOneUseTokens } from './one-use-tokens.ts'
import { clubSettingsRoutes } from './settings-routes.ts'
import { ClubSettings } from './settings.ts'
import { StaffService } from './staff.ts'
import { staffRoutes } from './staff-routes.ts'

// A club run by its own admins: its settings, its staff and its members.
export default fp(async (app) => {
  await app.register(clubSettingsRoutes, { settings: new ClubSettings(app.tenants) })
  const tokens = createOneUseTokens(app.redis)
  // The live hub is the notifications plugin's, which registers after this one: looked up when a change is made.
  // Not published, the change still holds (every request checks it) and open streams end at their next heartbeat.
  const accessChanged = async (staffId: string): Promise<void> => {
    await app.liveHub.publish(keys.staff.accessChanged(staffId), { type: 'access-changed' })
      .catch((err: unknown) => { app.log.warn({ err }, 'staff access change not published') })
  }
  await app.register(staffRoutes, { staff: new StaffService({ tenants: app.tenants, access: app.commerce, tokens, accessChanged }) })
  // The chat-linking plugin registers after this one: its code store is looked up when a code is made.
  const members = new MemberService({
    tenants: app.tenants,
    access: app.commerce,
    tokens,
    linkCodes: () => app.linkCodes,
    jwtSecret: app.config.jwtSecret,
    dispensing: app.dispensing,
    linkedAccounts: () => app.linkedAccounts,
    conversations: () => app.chatInbox,
    notices: () => app.notifications,
  })
  await app.register(memberRoutes, { members })
}, { name: 'club', dependencies: ['auth', 'tenants', 'commerce', 'dispensing'] })
