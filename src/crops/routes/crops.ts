import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { cropParams, createCropBody, listCropsQuery, patchCropBody } from '../requests.ts'
import { cropResponses } from '../responses.ts'
import { CROP_KEEPERS, type CropService } from '../service.ts'
import { completeCropView, cropStats, cropSummary, cropView } from '../views.ts'

export interface CropRoutesOptions {
  service: CropService
}

const tags = ['crops']

/** The crop resource: list, create, read, update, delete, complete view. */
export async function cropRoutes (fastify: FastifyInstance, { service }: CropRoutesOptions) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const onRequest = app.guard({ roles: CROP_KEEPERS })

  app.get('/api/crops', {
    onRequest,
    schema: { tags, summary: 'List crops; filters combine', querystring: listCropsQuery, response: { 200: cropResponses.list } },
  }, async (request) => {
    const { limit, offset, ...filters } = request.query
    const { crops, count } = await service.list(request.actor, filters, { limit, offset })
    const applied = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined))
    return { crops: crops.map(cropSummary), count, limit, offset, filters: applied }
  })

  app.post('/api/crops', {
    onRequest,
    schema: { tags, summary: 'Create a crop (status defaults to IDEATING)', body: createCropBody, response: { 201: cropResponses.created } },
  }, async (request, reply) => {
    const crop = await service.create(request.actor, request.body)
    const { id, name, strain, status, plantedAt, expectedYield, createdAt } = crop
    return reply.status(201).send({ crop: { id, name, strain, status, plantedAt, expectedYield, createdAt } })
  })

  app.get('/api/crops/:cropId', {
    onRequest,
    schema: { tags, summary: 'A crop with its timeline and status history', params: cropParams, response: { 200: cropResponses.one } },
  }, async (request) => ({ crop: cropView(await service.get(request.actor, request.params.cropId)) }))

  app.patch('/api/crops/:cropId', {
    onRequest,
    schema: { tags, summary: 'Update crop fields (not status)', params: cropParams, body: patchCropBody, response: { 200: cropResponses.patched } },
  }, async (request) => {
    const view = cropView(await service.patch(request.actor, request.params.cropId, request.body))
    // strainName only names the strain sent; the crop shows it inside strain.
    const fields = Object.keys(request.body).filter((field): field is keyof typeof view => field in view)
    const changed = Object.fromEntries(fields.map((field) => [field, view[field]]))
    return { crop: { ...changed, id: view.id, updatedAt: view.updatedAt } }
  })

  app.delete('/api/crops/:cropId', {
    onRequest,
    schema: { tags, summary: 'Delete a crop with its plants and harvests', params: cropParams, response: { 200: cropResponses.deleted } },
  }, async (request) => {
    await service.remove(request.actor, request.params.cropId)
    return { success: true as const }
  })

  app.get('/api/crops/:cropId/complete', {
    onRequest,
    schema: { tags, summary: 'A crop with spaces, strain, harvests and stats', params: cropParams, response: { 200: cropResponses.complete } },
  }, async (request) => {
    const details = await service.complete(request.actor, request.params.cropId)
    return {
      crop: completeCropView(details),
      strain: details.strain,
      harvests: details.crop.harvests,
      batches: details.batches,
      stats: cropStats(details.crop, new Date())
    }
  })
}
