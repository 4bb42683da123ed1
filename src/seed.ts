import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { demoStaff, demoTenants } from './tenants/demo.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Domains add their demo data here; all of it runs once the app is ready, when SEED=demo. Each must be idempotent. */
    demoSeeders: Array<{ name: string, run: () => Promise<void> }>
  }
}

/**
 * Makes only what is missing, so that what the clubs' admins changed (settings, roles) survives a restart. A staff
 * entry that exists is written again as it is: that puts it on its clubs' rosters, which data from before the
 * rosters lacks.
 */
async function seedTenants (app: FastifyInstance): Promise<void> {
  for (const tenant of demoTenants) await app.tenants.create(tenant)
  for (const staff of demoStaff) await app.tenants.putStaff(await app.tenants.getStaff(staff.email) ?? staff)
}

export default fp(async (app) => {
  if (app.config.seed !== 'demo') return
  app.addHook('onReady', async () => {
    await seedTenants(app)
    for (const seeder of app.demoSeeders) {
      await seeder.run()
      app.log.debug({ seeder: seeder.name }, 'demo data loaded')
    }
    app.log.info({ seeders: ['tenants', ...app.demoSeeders.map((s) => s.name)] }, 'demo data loaded')
  })
}, { name: 'seed', dependencies: ['tenants'] })
