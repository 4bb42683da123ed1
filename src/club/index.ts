import fp from 'fastify-plugin'
import { clubSettingsRoutes } from './settings-routes.ts'

// A club run by its own admins: its settings (and, registered by the orders plugin, its staff and members).
export default fp(async (app) => {
  await app.register(clubSettingsRoutes)
}, { name: 'club', dependencies: ['auth', 'tenants'] })
