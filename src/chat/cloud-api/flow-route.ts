import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { CloudApiConfig } from '../../config.ts'
import { AppError, fieldErrors } from '../../errors.ts'
import { errorEnvelopeSchema } from '../../schemas/common.ts'
import { flowRequestSchema } from '../linking/flow-request.ts'
import { answerLoginForm, type LoginFormDeps } from '../linking/login-form.ts'
import { keepRawBodies, rawBodyOf, verifyWebhookSignature } from '../signature.ts'
import { decryptFlowRequest, DECRYPTION_FAILED_STATUS, encryptFlowResponse, FlowDecryptionError } from './flows-crypto.ts'

// POST /api/chat/flow-endpoint with Meta directly (CHAT_PROVIDER=cloud-api): the login form's data endpoint as
// Meta calls it. The app secret's `X-Hub-Signature-256` over the raw bytes comes first (432, Meta's status for a
// signature that fails, before anything is read); then the body is decrypted with the business's private key
// (421 when it cannot be: the app fetches the public key again and retries once); the decrypted request is the
// partner's `data_exchange`, answered by the same login form; the answer goes back encrypted, as base64 text.

const SIGNATURE_FAILED_STATUS = 432

const headerValue = (v: string | string[] | undefined) => Array.isArray(v) ? v[0] : v

/** An answer to Meta's notice that the app met an error on a screen (`data.error`): acknowledged, nothing else. */
const isErrorNotice = (payload: unknown): boolean => typeof (payload as { data?: { error?: unknown } } | null)?.data?.error === 'string'

export async function cloudFlowRoutes (scope: FastifyInstance, opts: { cloud: CloudApiConfig, form: LoginFormDeps }) {
  keepRawBodies(scope)
  const app = scope.withTypeProvider<ZodTypeProvider>()
  app.post('/api/chat/flow-endpoint', {
    schema: {
      tags: ['chat'],
      summary: 'Data endpoint of the in-chat login form, called by Meta with the Flows encryption (CHAT_PROVIDER=cloud-api)',
      description: 'Signed with `X-Hub-Signature-256` (the app secret); the body is `{encrypted_flow_data, encrypted_aes_key, initial_vector}` ' +
        'and the answer is the encrypted JSON as base64 text. 432: the signature fails; 421: the body cannot be decrypted.',
      security: [],
      headers: z.object({ 'x-hub-signature-256': z.string().optional() }).loose(),
      response: {
        200: z.string().describe('The encrypted answer, base64'),
        400: errorEnvelopeSchema,
        403: errorEnvelopeSchema,
        [DECRYPTION_FAILED_STATUS]: errorEnvelopeSchema,
        [SIGNATURE_FAILED_STATUS]: errorEnvelopeSchema,
      },
    },
  }, async (request, reply) => {
    const raw = rawBodyOf(request.body)
    if (!verifyWebhookSignature(opts.cloud.appSecret, raw, headerValue(request.headers['x-hub-signature-256']))) {
      throw new AppError('UNAUTHORIZED', 'Invalid or missing X-Hub-Signature-256', { status: SIGNATURE_FAILED_STATUS })
    }
    let decrypted
    try {
      decrypted = decryptFlowRequest(JSON.parse(raw.toString('utf8')), opts.cloud.flowsPrivateKey)
    } catch (err) {
      const reason = err instanceof FlowDecryptionError ? err.message : 'the body is not JSON'
      throw new AppError('INVALID_REQUEST', `The request cannot be decrypted: ${reason}`, { status: DECRYPTION_FAILED_STATUS })
    }
    const { payload, aesKey, iv } = decrypted
    const answer = async (): Promise<unknown> => {
      if (isErrorNotice(payload)) return { data: { acknowledged: true } }
      // Meta has checked its own request: the decrypted body is the partner's data_exchange, signed as valid
      const parsed = flowRequestSchema.safeParse({ source: 'cloud-api', data_exchange: payload, signature_valid: true })
      if (!parsed.success) throw new AppError('VALIDATION_ERROR', 'Invalid flow request', { details: { errors: fieldErrors(parsed.error.issues) } })
      if (parsed.data.kind === 'ping') return { data: { status: 'active' } }
      return await answerLoginForm(opts.form, parsed.data)
    }
    const body = encryptFlowResponse(await answer(), aesKey, iv)
    return await reply.type('text/plain; charset=utf-8').send(body)
  })
}
