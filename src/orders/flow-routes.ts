import { PassThrough } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { AppError } from '../errors.ts'
import { errorEnvelopeSchema } from '../schemas/common.ts'
import {
  createAndProcess, createAndProcessBody, type Dispenser, runOnce, type CreateAndProcessInput, STEP_PROGRESS, TIMELINE_ACTIONS, type FlowOutcome,
  type StepEvent, type StepName
} from './flow.ts'
import type { IdempotencyStore } from './idempotency.ts'
import { orderSchema } from './schemas.ts'
import { ORDER_MANAGERS, type OrdersService } from './service.ts'
import type { UnsettledStore } from './unsettled.ts'

// POST /api/orders/create-and-process and its text/event-stream twin (admin).

export interface FlowRoutesOptions {
  orders: OrdersService
  idempotency: IdempotencyStore
  dispenser: Dispenser
  unsettled: UnsettledStore
}

const headers = z.object({ 'idempotency-key': z.string().optional() }).loose()

function failure (outcome: Extract<FlowOutcome, { ok: false }>): AppError {
  const { code, message, details } = outcome.error
  return new AppError(code as AppError['code'], message, { status: outcome.status, details })
}

export async function flowRoutes (fastify: FastifyInstance, opts: FlowRoutesOptions) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { orders, idempotency } = opts
  const onRequest = app.guard({ roles: ORDER_MANAGERS })
  const tags = ['orders']

  const run = (request: FastifyRequest, body: CreateAndProcessInput, onStep: (e: StepEvent) => void, started?: () => void) => {
    const key = request.headers['idempotency-key']
    return runOnce(idempotency, request.actor.tenant.id, typeof key === 'string' ? key : undefined, body, async () => {
      started?.()
      return await createAndProcess(orders, opts.dispenser, request.actor, body, onStep, opts.unsettled)
    })
  }

  app.post('/api/orders/create-and-process', {
    onRequest,
    schema: {
      tags,
      summary: 'Create, pay, fulfill and ship an order in one call (Idempotency-Key supported)',
      headers,
      body: createAndProcessBody,
      response: {
        200: z.object({ order: orderSchema, timeline: z.array(z.object({ action: z.enum(TIMELINE_ACTIONS), timestamp: z.string() })) }),
        '4xx': errorEnvelopeSchema,
        '5xx': errorEnvelopeSchema,
      },
    },
  }, async (request) => {
    const outcome = await run(request, request.body, () => {})
    if (!outcome.ok) throw failure(outcome)
    return { order: outcome.order, timeline: outcome.timeline }
  })

  app.post('/api/orders/create-and-process-stream', {
    onRequest,
    schema: {
      tags,
      summary: 'The one-call order as a text/event-stream of its steps; a bad body is a 400 before any event',
      headers,
      body: createAndProcessBody,
    },
  }, async (request, reply) => {
    const events = new PassThrough()
    events.on('error', () => {})
    let started = false
    const start = () => {
      if (started) return
      started = true
      reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache').header('x-accel-buffering', 'no')
      reply.send(events)
    }
    // A client that went away stops receiving, not the flow: the order is finished (or its failure recorded).
    const write = (event: Record<string, unknown>) => {
      start()
      if (!events.destroyed && !events.writableEnded) events.write(`data: ${JSON.stringify(event)}\n\n`)
    }
    let lastStep: StepName = 'creating_cart'
    let outcome: FlowOutcome
    try {
      outcome = await run(request, request.body, (e) => { lastStep = e.step; write({ ...e }) }, start)
    } catch (err) {
      if (!started) throw err
      const e = err instanceof AppError ? err : new AppError('INTERNAL_ERROR', 'Internal server error')
      outcome = { ok: false, status: e.statusCode, error: { code: e.code, message: e.message } }
    }
    if (outcome.ok) {
      const { id, displayId, status } = outcome.order
      write({ step: 'completed', message: 'Order completed', progress: STEP_PROGRESS.completed, success: true, order: { id, displayId, status } })
    } else {
      const step = (outcome.error.details?.step as StepName | undefined) ?? lastStep
      write({ step, message: outcome.error.message, progress: STEP_PROGRESS[step], success: false, error: outcome.error.message })
    }
    events.end()
    return reply
  })
}
