import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { notFound } from '../errors.ts'
import { optionalBody } from '../schemas/common.ts'
import type { ChatStore, DeadLetter } from './store/index.ts'

// GET /api/chat/dead-letters and POST /api/chat/dead-letters/{id}/retry (admin). A dead letter belongs to the
// club the conversation was with when it died (the session's club for a turn, the reply's for a send); an
// admin sees and re-sends only their club's, read from the club's own index (another club's failures never
// push them out). Letters of a phone that never chose a club stay in the log and the metric only.

const deadLetter = z.object({
  id: z.string(),
  lane: z.enum(['turn', 'send']).describe('turn: an inbound message whose turn kept failing; send: a reply the provider never took'),
  phone: z.string(),
  reason: z.string(),
  at: z.iso.datetime(),
  tries: z.number().int(),
  content: z.unknown().describe('The inbound message (turn) or the reply body (send), as it was queued'),
})

const MAX_LIST = 200

function view (letter: DeadLetter): z.infer<typeof deadLetter> {
  let content: unknown
  try {
    const parsed = JSON.parse(letter.payload) as { body?: unknown }
    content = letter.lane === 'send' ? parsed.body : parsed
  } catch {
    content = letter.payload
  }
  return { id: letter.id, lane: letter.lane, phone: letter.phone, reason: letter.reason, at: new Date(letter.at).toISOString(), tries: letter.tries, content }
}

export async function deadLetterRoutes (scope: FastifyInstance, store: Pick<ChatStore, 'deadLetters' | 'deadLetter' | 'redrive'>): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>()

  app.get('/api/chat/dead-letters', {
    onRequest: app.guard({ roles: ['admin'] }),
    schema: {
      tags: ['chat'],
      summary: "The club's chat dead letters, newest first (admin)",
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(MAX_LIST).default(50) }),
      response: { 200: z.object({ deadLetters: z.array(deadLetter) }) },
    },
  }, async (request) => {
    return { deadLetters: (await store.deadLetters(request.actor.tenant.id, request.query.limit)).map(view) }
  })

  app.post('/api/chat/dead-letters/:id/retry', {
    onRequest: app.guard({ roles: ['admin'] }),
    schema: {
      tags: ['chat'],
      summary: "Puts a dead letter back at the end of its phone's mailbox (turn) or outbox (send) (admin)",
      params: z.object({ id: z.string().regex(/^\d+-[\w-]+$/, 'a dead letter id') }),
      body: optionalBody(z.object({})),
      response: { 200: z.object({ deadLetter }) },
    },
  }, async (request) => {
    const letter = await store.deadLetter(request.params.id)
    if (!letter || letter.tenantId !== request.actor.tenant.id) throw notFound('Dead letter')
    const moved = await store.redrive(letter.id)
    if (!moved) throw notFound('Dead letter')
    return { deadLetter: view(moved) }
  })
}
