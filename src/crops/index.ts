import fp from 'fastify-plugin'
import { CatalogService } from './catalog.ts'
import { seedCropDemo } from './demo.ts'
import { catalogRoutes } from './routes/catalog.ts'
import { cropRoutes } from './routes/crops.ts'
import { plantAndHarvestRoutes } from './routes/harvests.ts'
import { lifecycleRoutes } from './routes/lifecycle.ts'
import { CropService } from './service.ts'
import { createCatalogStore, createCropStore } from './store/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    crops: CropService
  }
}

// The crops domain: crops with their lifecycle, timeline, plants and harvests, and the club's catalog.
export default fp(async (app) => {
  const crops = createCropStore(app.redis)
  const catalogStore = createCatalogStore(app.redis)
  const catalog = new CatalogService(catalogStore)
  const service = new CropService(crops, catalog)
  app.decorate('crops', service)
  await app.register(cropRoutes, { service })
  await app.register(lifecycleRoutes, { service })
  await app.register(plantAndHarvestRoutes, { service })
  await app.register(catalogRoutes, { catalog })
  app.demoSeeders.push({ name: 'crops', run: async () => { await seedCropDemo(crops, catalogStore) } })
}, { name: 'crops', dependencies: ['auth'] })
