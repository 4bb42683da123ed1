import fp from 'fastify-plugin'
import { batchSource } from './ledger-source.ts'
import { batchRoutes } from './routes/batches.ts'
import { BatchService } from './service.ts'
import { batchView } from './views.ts'
import { createBatchStore } from './store/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    batches: BatchService
  }
}

// The batches domain: a stocked harvest becomes a batch, packaged into the shop's variants, dispensed, destroyed,
// recalled.
export default fp(async (app) => {
  const service = new BatchService(createBatchStore(app.redis), {
    products: app.products, medusaFor: (tenant) => app.commerce.medusaFor(tenant), locks: app.locks, notifier: app.notifier, crops: app.crops
  })
  app.decorate('batches', service)
  // A harvest written as STOCKED becomes its batch, in the same club, once.
  app.crops.onStocked(async (tenant, crop, harvest) => { await service.fromHarvest(tenant, crop, harvest) })
  app.crops.listBatchesWith(async (tenantId, cropId) => (await service.ofCrop(tenantId, cropId)).map((b) => {
    const grams = batchView(b)
    return {
      batchNumber: b.batchNumber,
      harvestId: b.harvestId,
      status: grams.status,
      gramsHarvested: grams.gramsHarvested,
      gramsAvailable: grams.gramsAvailable,
      gramsDispensed: grams.grams.dispensed,
      gramsOnHand: grams.gramsOnHand
    }
  }))
  // Each dispensed ledger line names its batches and grams, with their lab values; a reversal gives the units back.
  app.ledger.useBatches(batchSource(service))
  await app.register(batchRoutes, { service })
}, { name: 'batches', dependencies: ['auth', 'crops', 'products', 'commerce', 'locks', 'notifications', 'dispensing'] })
