import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { Handoff } from '../../../machines/handoff.ts'
import { optionalBody, queryBoolean } from '../../schemas/common.ts'
import { isAddress } from '../provider/identity.ts'
import { shownStatus, type Receipt } from '../provider/receipts.ts'
import type { ChatInbox, ShownMessage } from './service.ts'
import type { Conversation } from './store.ts'

// The staff's chat inbox (admins and growers of the club): the club's conversations, one conversation's
// messages, take over, write as staff, hand back. A phone that is not the club's is 404, like an unknown one.

const TAG = 'chat-staff'
const STAFF = ['admin', 'grower'] as const

const message = z.object({
  id: z.string(),
  at: z.iso.datetime(),
  direction: z.enum(['in', 'out']),
  author: z.string().describe('member, bot, system, or staff:<user id>'),
  type: z.string(),
  text: z.string(),
  choice: z.string().optional().describe('The reply id of a button or list row the member chose'),
  delivery: z.object({
    status: z.enum(['accepted', 'sent', 'delivered', 'read', 'failed'])
      .describe('accepted: the provider took it and reported nothing yet; delivered or read win over an earlier failure'),
    at: z.iso.datetime().optional().describe('When the status shown was first reported'),
    failure: z.object({
      at: z.iso.datetime(),
      code: z.number().int().optional().describe("The provider's error code (131047: the 24-hour window was closed, ...)"),
      reason: z.string(),
    }).optional().describe('The failure the provider reported, kept even when the message was delivered later'),
  }).optional().describe('For a reply the service sent: what the provider last said of its delivery'),
}).meta({ id: 'ChatHistoryMessage' })

const handoff = z.object({
  status: z.enum(['requested', 'taken']),
  by: z.string().optional().describe('The staff user holding the conversation'),
  since: z.iso.datetime(),
  deadline: z.iso.datetime().optional().describe('When an untaken request goes back to the bot'),
}).nullable().meta({ id: 'ChatHandoff' })

const conversation = z.object({
  phone: z.string(),
  lastMessage: message.nullable(),
  lastActivityAt: z.iso.datetime(),
  needsPerson: z.boolean().describe('The member asked for a person and nobody took the conversation yet'),
  unread: z.number().int().describe("The member's messages since staff last opened the conversation"),
  handoff,
}).meta({ id: 'ChatConversation' })

const phoneParams = z.object({ phone: z.string().refine(isAddress, 'a phone number in E.164 digits, or a business-scoped user id') })
const paging = { limit: z.coerce.number().int().min(1).max(100).default(20), offset: z.coerce.number().int().min(0).max(10_000).default(0) }

const iso = (ms: number): string => new Date(ms).toISOString()
function deliveryView (r: Receipt): NonNullable<z.infer<typeof message>['delivery']> {
  const status = shownStatus(r)
  const at = status === 'failed' ? r.failure?.at : r.progressAt
  return {
    status,
    ...(at !== undefined ? { at: iso(at) } : {}),
    ...(r.failure ? { failure: { at: iso(r.failure.at), ...(r.failure.code !== undefined ? { code: r.failure.code } : {}), reason: r.failure.title } } : {}),
  }
}
const messageView = ({ receipt, ...m }: ShownMessage): z.infer<typeof message> => ({
  ...m, at: iso(m.at), ...(receipt ? { delivery: deliveryView(receipt) } : {})
})
const handoffView = (h: Handoff | undefined): z.infer<typeof handoff> => h === undefined
  ? null
  : h.status === 'taken' ? { status: 'taken', by: h.by, since: iso(h.at) } : { status: 'requested', since: iso(h.at), deadline: iso(h.deadline) }

function conversationView (c: Conversation, now: number): z.infer<typeof conversation> {
  return {
    phone: c.phone,
    lastMessage: c.last ? messageView(c.last) : null,
    lastActivityAt: iso(c.lastAt),
    needsPerson: c.handoff?.status === 'requested' && c.handoff.deadline > now,
    unread: c.unread,
    handoff: handoffView(c.handoff),
  }
}

export async function inboxRoutes (scope: FastifyInstance, inbox: ChatInbox, clock: () => number): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>()
  const guard = app.guard({ roles: [...STAFF] })

  app.get('/api/chat/conversations', {
    onRequest: guard,
    schema: {
      tags: [TAG],
      summary: "The club's chat conversations, latest activity first (admin, grower)",
      querystring: z.object({ ...paging, needsPerson: queryBoolean.optional().describe('Only conversations waiting for a person') }),
      response: { 200: z.object({ conversations: z.array(conversation), total: z.number().int(), limit: z.number().int(), offset: z.number().int() }) },
    },
  }, async (request) => {
    const { limit, offset, needsPerson } = request.query
    const { conversations, total } = await inbox.list(request.actor.tenant.id, { limit, offset, needsPerson: needsPerson ?? false })
    const now = clock()
    return { conversations: conversations.map((c) => conversationView(c, now)), total, limit, offset }
  })

  app.get('/api/chat/conversations/:phone/messages', {
    onRequest: guard,
    schema: {
      tags: [TAG],
      summary: "One conversation's messages, newest first (admin, grower); the first page marks it read",
      params: phoneParams,
      querystring: z.object(paging),
      response: { 200: z.object({ messages: z.array(message), limit: z.number().int(), offset: z.number().int() }) },
    },
  }, async (request) => {
    const { limit, offset } = request.query
    const messages = await inbox.messages(request.actor.tenant.id, request.params.phone, offset, limit)
    return { messages: messages.map(messageView), limit, offset }
  })

  app.post('/api/chat/conversations/:phone/takeover', {
    onRequest: guard,
    schema: {
      tags: [TAG],
      summary: 'Take the conversation over: the bot stops answering this phone (admin, grower); 409 names the holder',
      params: phoneParams,
      body: optionalBody(z.object({})),
      response: { 200: z.object({ handoff }) },
    },
  }, async (request) => {
    return { handoff: handoffView(await inbox.takeOver(request.actor.tenant.id, request.params.phone, request.actor.sub)) }
  })

  app.post('/api/chat/conversations/:phone/messages', {
    onRequest: guard,
    schema: {
      tags: [TAG],
      summary: 'Write to the member as staff, through the outbox (admin, grower); takes the conversation over; 409 outside the 24-hour window',
      params: phoneParams,
      body: z.object({ text: z.string().trim().min(1).max(4096) }),
      response: { 201: z.object({ message }) },
    },
  }, async (request, reply) => {
    const sent = await inbox.send(request.actor.tenant.id, request.params.phone, request.actor.sub, request.body.text, `staff:${randomUUID()}`)
    return await reply.status(201).send({ message: messageView(sent) })
  })

  app.post('/api/chat/conversations/:phone/handback', {
    onRequest: guard,
    schema: {
      tags: [TAG],
      summary: 'Hand the conversation back to the bot, which tells the member (admin, grower)',
      params: phoneParams,
      body: optionalBody(z.object({})),
      response: { 200: z.object({ handoff }) },
    },
  }, async (request) => {
    await inbox.handBack(request.actor.tenant.id, request.params.phone)
    return { handoff: null }
  })
}
