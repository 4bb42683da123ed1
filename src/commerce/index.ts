import fp from 'fastify-plugin'
import { commerceAccess, type CommerceAccess } from './access.ts'
import { createUpstreamSessionStore } from './sessions.ts'
import { loadTenantsFile } from './settings.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Base URL of the commerce backend: COMMERCE_URL, or the embedded backend's loopback port. */
    commerceUrl: string
    /** The commerce client: each club's backend, the upstream logins, one HTTP client. */
    commerce: CommerceAccess
  }
}

// The commerce client, shared by orders, accounts, the club's people, inventory, /ready and the bot.
export default fp(async (app) => {
  // A bad tenants file stops the start-up here, with the tenant and field named.
  const file = app.config.commerce.tenantsFile ? await loadTenantsFile(app.config.commerce.tenantsFile) : {}
  app.decorate('commerce', commerceAccess(app, file, createUpstreamSessionStore(app.redis)))
}, { name: 'commerce', dependencies: ['redis', 'metrics', 'embedded-commerce'] })
