import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { AppError, fieldErrors } from '../errors.ts'
import { errorEnvelopeSchema } from '../schemas/common.ts'
import { keepRawBodies, rawBodyOf, verifyWebhookSignature } from './signature.ts'
import { isStatusEvent, MESSAGE_EVENT, readDelivery, type AddressedStatuses } from './inbound.ts'
import { encodeMail } from './mail.ts'
import type { ChatPipeline } from './pipeline.ts'

// POST /api/chat/webhook answers fast: verify the signature on the raw bytes, read the delivery, hand its messages
// to the pipeline's first stage (src/chat/pipeline.ts: de-duplicated, stored in each phone's mailbox), answer.
// The conversation runs afterwards, in the turn lane.

export interface WebhookDeps {
  secret: string
  clock: () => number
  pipeline: Pick<ChatPipeline, 'accept'>
  /** Hands status events to the receipts' own path; false when it is full (the provider must retry). */
  statuses: (statuses: AddressedStatuses[]) => boolean
  /** Our business number's id: a message naming another is acknowledged, dropped and counted here. */
  phoneNumberId: string
  foreign: (count: number) => void
}

const MAX_KEY = 256
// Each inbound message is logged by its turn; the webhook's own two request lines per call would double that at
// `info`, so at `info` the route logs from `warn` on (at `debug` and below, as every route). A refused call (bad
// signature, unreadable body) is then logged as a warning instead of the usual `info` line, so that a wrong
// secret or a changed provider format still shows; 5xx are logged as errors as everywhere.
function quieterThanInfo (level: string) {
  if (level !== 'info') return {}
  return {
    logLevel: 'warn' as const,
    onError: async (request: FastifyRequest, _reply: FastifyReply, error: Error & { statusCode?: number, code?: string }) => {
      const status = error.statusCode ?? 500
      if (status < 500) request.log.warn({ status, code: error.code }, `chat webhook refused: ${error.message}`)
    },
  }
}
const ack = z.object({ success: z.literal(true) })
const headerValue = (v: string | string[] | undefined) => Array.isArray(v) ? v[0] : v

function parseJson (raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'))
  } catch {
    throw new AppError('INVALID_REQUEST', 'Malformed JSON body')
  }
}

export async function webhookRoutes (scope: FastifyInstance, deps: WebhookDeps): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>()
  // The body stays bytes until the signature over those exact bytes is checked (spec, Authentication 6).
  keepRawBodies(scope)

  app.post('/api/chat/webhook', {
    ...quieterThanInfo(scope.log.level),
    // signed provider calls come from a few addresses in bursts; the signature is their limit
    config: { rateLimit: false },
    schema: {
      tags: ['chat'],
      summary: 'Inbound chat messages from the messaging provider (signed)',
      security: [],
      headers: z.object({
        'x-webhook-signature': z.string().optional(),
        'x-webhook-event': z.string().optional(),
        'x-idempotency-key': z.string().optional(),
      }).loose(),
      response: { 200: ack, 400: errorEnvelopeSchema, 401: errorEnvelopeSchema, 503: errorEnvelopeSchema },
    },
  }, async (request) => {
    const raw = rawBodyOf(request.body)
    if (!verifyWebhookSignature(deps.secret, raw, headerValue(request.headers['x-webhook-signature']))) {
      throw new AppError('UNAUTHORIZED', 'Invalid or missing webhook signature')
    }
    const headerEvent = headerValue(request.headers['x-webhook-event'])
    if (headerEvent !== undefined && headerEvent !== MESSAGE_EVENT && !isStatusEvent(headerEvent)) return { success: true as const }

    const delivery = readDelivery(parseJson(raw), deps.clock(), headerEvent, deps.phoneNumberId)
    if (!delivery.ok) {
      throw new AppError('VALIDATION_ERROR', 'Invalid webhook body', { details: { errors: fieldErrors(delivery.error.issues) } })
    }
    if (delivery.foreign > 0) {
      deps.foreign(delivery.foreign)
      request.log.warn({ foreign: delivery.foreign }, 'chat webhook: messages for another business number dropped')
    }
    const event = headerEvent ?? delivery.event ?? MESSAGE_EVENT
    if (event !== MESSAGE_EVENT && !isStatusEvent(event)) return { success: true as const }
    // receipts first, on their own path: a full queue refuses the delivery before any of its messages is stored,
    // so the provider's retry brings both again (the messages are then de-duplicated)
    if (delivery.statuses.length > 0 && !deps.statuses(delivery.statuses)) {
      throw new AppError('SERVICE_UNAVAILABLE', 'Too many status events waiting; retry later', { headers: { 'retry-after': '10' } })
    }
    if (delivery.messages.length === 0) return { success: true as const }
    const key = headerValue(request.headers['x-idempotency-key'])?.trim()
    if (key !== undefined && (key.length === 0 || key.length > MAX_KEY)) {
      throw new AppError('VALIDATION_ERROR', 'Invalid X-Idempotency-Key', { details: { errors: { 'X-Idempotency-Key': [`1 to ${MAX_KEY} characters`] } } })
    }

    // what is new, and that the phones wrote (the provider's 24-hour window opens), in one step per phone;
    // throws only when the store cannot be reached (the provider must retry)
    let stored: number
    try {
      const letters = delivery.messages.map((m) => ({ phone: m.phone, id: m.id, body: encodeMail(m) }))
      stored = await deps.pipeline.accept(letters, { deliveryKey: key, at: deps.clock() })
    } catch (err) {
      request.log.error({ err }, 'chat webhook: message store unreachable')
      throw new AppError('SERVICE_UNAVAILABLE', 'Messages cannot be stored right now; retry later', { headers: { 'retry-after': '10' } })
    }
    request.log.debug({ messages: delivery.messages.length, fresh: stored, skipped: delivery.skipped }, 'chat webhook accepted')
    return { success: true as const }
  })
}
