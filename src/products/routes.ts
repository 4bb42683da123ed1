import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { createProductBody, listProductsQuery, patchProductBody, productParams, productResponses } from './schemas.ts'
import { PRODUCT_READERS, PRODUCT_WRITERS, type ProductService } from './service.ts'

const tags = ['products']

/** The club's products in its commerce backend: admins write, growers read. */
export async function productRoutes (fastify: FastifyInstance, { service }: { service: ProductService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const read = app.guard({ roles: PRODUCT_READERS })
  const write = app.guard({ roles: PRODUCT_WRITERS })

  app.get('/api/products', {
    onRequest: read,
    schema: {
      tags,
      summary: 'The club\'s products with their variants (grams per unit, price)',
      querystring: listProductsQuery,
      response: { 200: productResponses.list }
    },
  }, async (request) => {
    const { limit, offset } = request.query
    return { ...await service.list(request.actor, { limit, offset }), limit, offset }
  })

  app.get('/api/products/:productId', {
    onRequest: read,
    schema: { tags, summary: 'A product of the club', params: productParams, response: { 200: productResponses.one } },
  }, async (request) => ({ product: await service.get(request.actor, request.params.productId) }))

  app.post('/api/products', {
    onRequest: write,
    schema: { tags, summary: 'Add a product with its variants to the club\'s shop', body: createProductBody, response: { 201: productResponses.one } },
  }, async (request, reply) => reply.status(201).send({ product: await service.create(request.actor, request.body) }))

  app.patch('/api/products/:productId', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Change a product and its variants (title, grams per unit, price, strain, status)',
      params: productParams,
      body: patchProductBody,
      response: { 200: productResponses.one }
    },
  }, async (request) => ({ product: await service.patch(request.actor, request.params.productId, request.body) }))

  app.delete('/api/products/:productId', {
    onRequest: write,
    schema: {
      tags, summary: 'Archive a product: off the shop, never deleted (what was sold names it)', params: productParams, response: { 200: productResponses.one }
    },
  }, async (request) => ({ product: await service.archive(request.actor, request.params.productId) }))
}
