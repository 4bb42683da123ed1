import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { allStatuses, isFrozen, validTransitions } from '../../../machines/crop.machine.ts'
import { cropParams, statusBody, timelineBody } from '../requests.ts'
import { cropResponses } from '../responses.ts'
import type { ErrorAnswer } from '../../errors.ts'
import { CROP_KEEPERS, InvalidTransition, type CropService } from '../service.ts'

const tags = ['crops']

// The spec's flat body for a refused move; every other error of the route (a crop busy with other writers, one
// not found) keeps the envelope.
function invalidMoveBody (answer: ErrorAnswer, error: Error) {
  if (!(error instanceof InvalidTransition)) return undefined
  return { error: answer.message, currentStatus: error.currentStatus, validTransitions: error.validTransitions }
}

/** Status and timeline of a crop. */
export async function lifecycleRoutes (fastify: FastifyInstance, { service }: { service: CropService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const onRequest = app.guard({ roles: CROP_KEEPERS })

  app.get('/api/crops/:cropId/status', {
    onRequest,
    schema: { tags, summary: 'Current status, valid moves and history', params: cropParams, response: { 200: cropResponses.status } },
  }, async (request) => {
    const crop = await service.record(request.actor, request.params.cropId)
    return {
      currentStatus: crop.status,
      validTransitions: validTransitions(crop.status),
      allStatuses: [...allStatuses],
      statusHistory: crop.statusHistory,
      isFrozen: isFrozen(crop.status),
    }
  })

  app.post('/api/crops/:cropId/status', {
    onRequest,
    config: { errorBody: invalidMoveBody },
    schema: {
      tags,
      summary: 'Move the crop to another status (409 with currentStatus and validTransitions when not allowed)',
      params: cropParams,
      body: statusBody,
      response: { 200: cropResponses.moved, 409: cropResponses.moveConflict },
    },
  }, async (request) => {
    const { crop, transition } = await service.move(request.actor, request.params.cropId, request.body)
    return { crop: { id: crop.id, status: crop.status, statusHistory: crop.statusHistory }, transition }
  })

  app.post('/api/crops/:cropId/timeline', {
    onRequest,
    schema: { tags, summary: 'Log an activity', params: cropParams, body: timelineBody, response: { 201: cropResponses.timeline } },
  }, async (request, reply) => {
    const { entry, crop } = await service.addTimeline(request.actor, request.params.cropId, request.body)
    return reply.status(201).send({ entry, crop: { id: crop.id, timeline: crop.timeline } })
  })
}
