import fp from 'fastify-plugin'
import { productRoutes } from './routes.ts'
import { ProductService } from './service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    products: ProductService
  }
}

// The club's products, kept in its commerce backend: what a batch is packaged into.
export default fp(async (app) => {
  const service = new ProductService((tenant) => app.commerce.medusaFor(tenant), async (tenantId, strainId) => await app.crops.hasStrain(tenantId, strainId))
  app.decorate('products', service)
  await app.register(productRoutes, { service })
}, { name: 'products', dependencies: ['auth', 'commerce', 'crops'] })
