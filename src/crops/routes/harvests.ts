import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { cropParams, harvestBody, harvestParams, patchHarvestBody, plantsBody } from '../requests.ts'
import { cropResponses } from '../responses.ts'
import { CROP_KEEPERS, type CropService } from '../service.ts'

const tags = ['crops']

/** Plants and harvests of a crop. */
export async function plantAndHarvestRoutes (fastify: FastifyInstance, { service }: { service: CropService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const onRequest = app.guard({ roles: CROP_KEEPERS })

  app.get('/api/crops/:cropId/plants', {
    onRequest,
    schema: { tags, summary: 'Plants of a crop', params: cropParams, response: { 200: cropResponses.plants } },
  }, async (request) => {
    const plants = await service.plants(request.actor, request.params.cropId)
    return { plants, count: plants.length }
  })

  app.post('/api/crops/:cropId/plants', {
    onRequest,
    schema: {
      tags,
      summary: 'Add plants with codes prefix + number (409 in a frozen crop)',
      params: cropParams,
      body: plantsBody,
      response: { 201: cropResponses.plants }
    },
  }, async (request, reply) => {
    const plants = await service.addPlants(request.actor, request.params.cropId, request.body)
    return reply.status(201).send({ plants, count: plants.length })
  })

  app.get('/api/crops/:cropId/harvest', {
    onRequest,
    schema: { tags, summary: 'Harvests of a crop', params: cropParams, response: { 200: cropResponses.harvests } },
  }, async (request) => {
    const crop = await service.record(request.actor, request.params.cropId)
    return { harvests: crop.harvests, count: crop.harvests.length, crop: { id: crop.id, name: crop.name, status: crop.status } }
  })

  app.post('/api/crops/:cropId/harvest', {
    onRequest,
    schema: {
      tags, summary: 'Record a harvest (FLOWERING or HARVESTING only)', params: cropParams, body: harvestBody, response: { 201: cropResponses.harvested }
    },
  }, async (request, reply) => {
    const { harvest, crop, message } = await service.harvest(request.actor, request.params.cropId, request.body)
    return reply.status(201).send({ harvest, crop: { id: crop.id, status: crop.status }, message })
  })

  app.patch('/api/crops/:cropId/harvest/:harvestId', {
    onRequest,
    schema: {
      tags,
      summary: 'Record dry weight, moisture, quality or status of a harvest',
      params: harvestParams,
      body: patchHarvestBody,
      response: { 200: cropResponses.harvestPatched }
    },
  }, async (request) => {
    const harvest = await service.updateHarvest(request.actor, request.params.cropId, request.params.harvestId, request.body)
    return { harvest }
  })
}
