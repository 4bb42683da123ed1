import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { AppError, fieldErrors } from '../errors.ts'
import { errorEnvelopeSchema } from '../schemas/common.ts'
import { keepRawBodies, rawBodyOf, verifyWebhookSignature } from './signature.ts'
import type { CloudApiConfig } from '../config.ts'
import { cloudEvents, cloudWebhookBody } from './cloud-api/webhook-body.ts'
import { verificationChallenge } from './cloud-api/verification.ts'
import { isStatusEvent, MESSAGE_EVENT, readDelivery, type AddressedStatuses, type Delivery } from './inbound.ts'
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
    const event = headerEvent ?? (delivery.ok ? delivery.event : undefined) ?? MESSAGE_EVENT
    if (delivery.ok && event !== MESSAGE_EVENT && !isStatusEvent(event)) return { success: true as const }
    const key = headerValue(request.headers['x-idempotency-key'])?.trim()
    if (key !== undefined && (key.length === 0 || key.length > MAX_KEY)) {
      throw new AppError('VALIDATION_ERROR', 'Invalid X-Idempotency-Key', { details: { errors: { 'X-Idempotency-Key': [`1 to ${MAX_KEY} characters`] } } })
    }
    return await take(request, deps, delivery, key)
  })
}

/** What both providers' webhooks do with a delivery once read: receipts to their path, new messages stored. */
async function take (request: FastifyRequest, deps: Omit<WebhookDeps, 'secret'>, delivery: Delivery, key: string | undefined): Promise<{ success: true }> {
  if (!delivery.ok) {
    throw new AppError('VALIDATION_ERROR', 'Invalid webhook body', { details: { errors: fieldErrors(delivery.error.issues) } })
  }
  if (delivery.foreign > 0) {
    deps.foreign(delivery.foreign)
    request.log.warn({ foreign: delivery.foreign }, 'chat webhook: messages for another business number dropped')
  }
  // receipts first, on their own path: a full queue refuses the delivery before any of its messages is stored,
  // so the provider's retry brings both again (the messages are then de-duplicated)
  if (delivery.statuses.length > 0 && !deps.statuses(delivery.statuses)) {
    throw new AppError('SERVICE_UNAVAILABLE', 'Too many status events waiting; retry later', { headers: { 'retry-after': '10' } })
  }
  if (delivery.messages.length === 0) return { success: true as const }
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
}

/**
 * CHAT_PROVIDER=cloud-api: Meta's verification handshake (GET) and its signed deliveries (POST, `X-Hub-Signature-256`
 * with the app secret, checked on the raw bytes before anything is read), turned into the partner's events
 * (src/chat/cloud-api/webhook-body.ts) and taken like the partner's.
 */
export async function cloudWebhookRoutes (scope: FastifyInstance, deps: Omit<WebhookDeps, 'secret'> & { cloud: CloudApiConfig }): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>()
  keepRawBodies(scope)
  app.get('/api/chat/webhook', {
    config: { rateLimit: false },
    schema: {
      tags: ['chat'],
      summary: "Meta's webhook verification handshake (CHAT_PROVIDER=cloud-api): the challenge back when the token is ours",
      security: [],
      querystring: z.object({ 'hub.mode': z.string().optional(), 'hub.verify_token': z.string().optional(), 'hub.challenge': z.string().max(256).optional() }),
      response: { 200: z.string(), 403: errorEnvelopeSchema },
    },
  }, async (request, reply) => {
    const challenge = verificationChallenge(request.query, deps.cloud.verifyToken)
    if (challenge === undefined) throw new AppError('FORBIDDEN', 'Not a subscription with the configured verify token')
    return await reply.type('text/plain; charset=utf-8').send(challenge)
  })
  app.post('/api/chat/webhook', {
    ...quieterThanInfo(scope.log.level),
    config: { rateLimit: false },
    schema: {
      tags: ['chat'],
      summary: "Inbound messages and statuses from Meta's Cloud API (CHAT_PROVIDER=cloud-api, signed with the app secret)",
      security: [],
      headers: z.object({ 'x-hub-signature-256': z.string().optional() }).loose(),
      response: { 200: ack, 400: errorEnvelopeSchema, 401: errorEnvelopeSchema, 503: errorEnvelopeSchema },
    },
  }, async (request) => {
    const raw = rawBodyOf(request.body)
    if (!verifyWebhookSignature(deps.cloud.appSecret, raw, headerValue(request.headers['x-hub-signature-256']))) {
      throw new AppError('UNAUTHORIZED', 'Invalid or missing X-Hub-Signature-256')
    }
    const parsed = cloudWebhookBody.safeParse(parseJson(raw))
    if (!parsed.success) throw new AppError('VALIDATION_ERROR', 'Invalid webhook body', { details: { errors: fieldErrors(parsed.error.issues) } })
    const { events } = cloudEvents(parsed.data)
    // the partner's batches hold at most 100 events: a larger delivery is taken 100 at a time, in order
    for (let i = 0; i < events.length || i === 0; i += 100) {
      await take(request, deps, readDelivery({ batch: true, data: events.slice(i, i + 100) }, deps.clock(), undefined, deps.phoneNumberId), undefined)
    }
    return { success: true as const }
  })
}
