import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { toGrams, toMg } from '../model.ts'
import { batchParams, batchResponses, destroyBody, labBody, listBatchesQuery, packageBody, patchBatchBody, recallBody, stockReportQuery } from '../schemas.ts'
import { infoSheetHtml, infoSheetText } from '../info-sheet.ts'
import { BATCH_KEEPERS, BATCH_RECALLERS, INFO_SHEET_READERS, type BatchService } from '../service.ts'
import { batchSummaryView, batchView } from '../views.ts'

const tags = ['batches']

/** The club's batches: list, read, lab values, best-before. */
export async function batchRoutes (fastify: FastifyInstance, { service }: { service: BatchService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const onRequest = app.guard({ roles: BATCH_KEEPERS })

  app.get('/api/batches', {
    onRequest,
    schema: { tags, summary: 'List batches, newest harvest first; filters combine', querystring: listBatchesQuery, response: { 200: batchResponses.list } },
  }, async (request) => {
    const { limit, offset, status, strain, minGramsAvailable } = request.query
    const filters = { status, strain, minMg: minGramsAvailable === undefined ? undefined : toMg(minGramsAvailable) }
    const { batches, count } = await service.list(request.actor, filters, { limit, offset })
    return { batches: batches.map(batchSummaryView), count, limit, offset }
  })

  app.get('/api/batches/:batchNumber', {
    onRequest,
    schema: { tags, summary: 'A batch with what was packaged, dispensed and destroyed', params: batchParams, response: { 200: batchResponses.one } },
  }, async (request) => ({ batch: batchView(await service.get(request.actor, request.params.batchNumber)) }))

  app.patch('/api/batches/:batchNumber', {
    onRequest,
    schema: { tags, summary: 'Set the best-before date', params: batchParams, body: patchBatchBody, response: { 200: batchResponses.one } },
  }, async (request) => ({ batch: batchView(await service.setBestBefore(request.actor, request.params.batchNumber, request.body.bestBefore)) }))

  app.post('/api/batches/:batchNumber/lab-results', {
    onRequest,
    schema: {
      tags, summary: 'Record a lab analysis (THC and CBD percent, report reference)', params: batchParams, body: labBody, response: { 201: batchResponses.one }
    },
  }, async (request, reply) => {
    const batch = await service.addLab(request.actor, request.params.batchNumber, request.body)
    return reply.status(201).send({ batch: batchView(batch) })
  })

  app.post('/api/batches/:batchNumber/package', {
    onRequest,
    schema: {
      tags,
      summary: 'Package units of a variant from the batch: units x grams per unit drawn, the units added to the variant\'s stock at the club\'s location',
      params: batchParams,
      body: packageBody,
      response: { 201: batchResponses.packaged },
    },
  }, async (request, reply) => {
    const { batch, packaging, stocked } = await service.package(request.actor, request.params.batchNumber, request.body)
    return reply.status(201).send({
      batch: batchView(batch), packaging: { id: packaging.id, variantId: packaging.variantId, units: packaging.units, grams: toGrams(packaging.mg) }, stocked
    })
  })

  app.post('/api/batches/:batchNumber/destroy', {
    onRequest,
    schema: { tags, summary: 'Record grams destroyed or lost, with a reason', params: batchParams, body: destroyBody, response: { 201: batchResponses.one } },
  }, async (request, reply) => reply.status(201).send({ batch: batchView(await service.destroy(request.actor, request.params.batchNumber, request.body)) }))

  app.post('/api/batches/:batchNumber/recall', {
    onRequest: app.guard({ roles: BATCH_RECALLERS }),
    schema: {
      tags,
      summary: 'Recall the batch: its units off sale, every member who received it told; recorded for good (a second call only finishes the first)',
      params: batchParams,
      body: recallBody,
      response: { 200: batchResponses.recalled },
    },
  }, async (request) => {
    const { batch, affected } = await service.recall(request.actor, request.params.batchNumber, request.body.reason)
    return { batch: batchView(batch), affected: affected.map(({ mg, ...d }) => ({ ...d, grams: toGrams(mg) })) }
  })

  app.get('/api/batches/:batchNumber/info-sheet', {
    onRequest: app.guard({ roles: INFO_SHEET_READERS }),
    schema: {
      tags,
      summary: 'The batch\'s info sheet for its packaging, in the club\'s language: a printable page, or plain text with Accept: text/plain',
      params: batchParams,
      produces: ['text/html', 'text/plain'],
      response: { 200: z.string().meta({ description: 'HTML (default) or plain text' }) },
    },
  }, async (request, reply) => {
    const batch = await service.forInfoSheet(request.actor, request.params.batchNumber)
    // Plain text when asked for and HTML is not: a browser (which lists text/html) always gets the page.
    const accept = request.headers.accept ?? ''
    const plain = accept.includes('text/plain') && !accept.includes('text/html')
    reply.header('vary', 'accept')
    if (plain) return reply.type('text/plain; charset=utf-8').send(infoSheetText(request.actor.tenant, batch))
    return reply.type('text/html; charset=utf-8').send(infoSheetHtml(request.actor.tenant, batch))
  })

  app.get('/api/reports/stock', {
    onRequest,
    schema: {
      tags,
      summary: 'Per strain, the year\'s harvests: grams harvested (dry), packaged, dispensed, destroyed, withdrawn by a recall, on hand, and any difference',
      querystring: stockReportQuery,
      response: { 200: batchResponses.stockReport },
    },
  }, async (request) => await service.stockReport(request.actor, request.query.year))
}
