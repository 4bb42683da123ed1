import fp from 'fastify-plugin'
import { signAccessToken } from '../../auth/tokens.ts'
import { cloudFlowRoutes } from '../cloud-api/flow-route.ts'
import { flowRoutes } from './flow-routes.ts'
import { createLinkCodeStore } from './link-code-store.ts'
import type { StaffLinkRecord } from './link-record.ts'
import { consumeLinkCode } from './link-service.ts'
import { linkRoutes } from './link-routes.ts'
import { createLinkedAccountStore } from './linked-account-store.ts'
import { createLoginAttemptLimiter } from './login-attempts.ts'
import { createLoginFormInvites } from './login-form-invites.ts'
import { loginMember } from './member-login.ts'
import type { LoginFormDeps } from './login-form.ts'

// Link codes, linked accounts and the in-chat login form endpoint.
export default fp(async (app) => {
  app.decorate('linkedAccounts', createLinkedAccountStore(app.redis))
  app.decorate('loginFormInvites', createLoginFormInvites(app.redis))

  const codes = createLinkCodeStore(app.redis)
  app.decorate('linkCodes', {
    consume: async (code: string, phone: string) => await consumeLinkCode(codes, code, phone),
    create: async (code: string, record: StaffLinkRecord) => { await codes.create(code, record) },
  })
  await app.register(linkRoutes, { codes })
  const form: LoginFormDeps = {
    tenants: app.tenants,
    invites: app.loginFormInvites,
    accounts: app.linkedAccounts,
    limiter: createLoginAttemptLimiter(app.redis),
    login: async (tenantId, email, password) => await loginMember(app.accounts, app.config.jwtSecret, app.log, tenantId, email, password),
    // Scoped to the one club the phone is linked to.
    issueLinkToken: async (principal, tenantId, ttlMs) => await signAccessToken(app.config.jwtSecret, {
      sub: principal.sub,
      role: principal.role,
      tenants: [tenantId],
      email: principal.email,
      name: principal.name,
    }, Math.floor(ttlMs / 1000)),
    // `chatBot` is decorated by the bot's plugin ('chat'), which depends on this one and so registers after it:
    // it is looked up when a login succeeds, never at registration. Not awaited: the form answers at once while
    // the bot greets the member in the chat.
    linked: (phone) => {
      app.chatBot.accountLinked(phone).catch((err: unknown) => {
        app.log.error({ err }, 'the chat bot could not greet a newly linked phone')
      })
    },
    now: Date.now,
  }
  // one login form; the provider decides how its data endpoint is signed and whether it is encrypted
  const cloud = app.config.chat.cloud
  if (cloud) await app.register(cloudFlowRoutes, { cloud, form })
  else await app.register(flowRoutes, { form })
}, { name: 'chat-linking', dependencies: ['auth', 'accounts'] })
