import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { bearerToken } from '../auth/tokens.ts'
import { memberSchema } from '../orders/schemas.ts'
import { errorResponses as errors, pageQuery } from '../schemas/common.ts'
import type { MemberService } from './members.ts'
import { CLUB_ADMINS } from './roles.ts'
import { passwordSchema } from './schemas.ts'
import { standingPatch, standingSchema } from '../dispensing/schemas.ts'

// /api/members (admins list and register members), their chat link, and the member's first password through
// Medusa's route POST /auth/customer/emailpass/update (Authorization: Bearer <password token>).

const phone = z.string().trim().regex(/^\+?[0-9 ()-]{6,20}$/, 'a phone number, e.g. +5491122334455').transform((p) => p.replace(/[^0-9+]/g, ''))

export async function memberRoutes (fastify: FastifyInstance, opts: { members: MemberService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const admin = app.guard({ roles: CLUB_ADMINS })

  app.get('/api/members', {
    onRequest: admin,
    schema: {
      tags: ['members'],
      summary: 'The club\'s members (customers of the backend whose clubs include this one); q searches email, names and phone (its digits, 4 or more)',
      querystring: pageQuery(20).extend({ q: z.string().trim().max(200).optional() }),
      response: { 200: z.object({ members: z.array(memberSchema), count: z.number(), offset: z.number(), limit: z.number() }) },
    },
  }, async (request) => {
    const { limit, offset, q } = request.query
    const { members, count } = await opts.members.list(request.actor, { q, limit, offset })
    return { members, count, offset, limit }
  })

  app.post('/api/members', {
    onRequest: admin,
    schema: {
      tags: ['members'],
      summary: 'Register a member (409 when already one): answers a single-use password token (72 h) when they have no password yet',
      body: z.object({
        email: z.email().max(320),
        firstName: z.string().trim().min(1).max(100),
        lastName: z.string().trim().min(1).max(100),
        phone: phone.optional(),
      }),
      response: { 201: z.object({ member: memberSchema, passwordToken: z.string().nullable(), standing: standingSchema }), ...errors },
    },
  }, async (request, reply) => reply.code(201).send(await opts.members.register(request.actor, request.body)))

  const memberParams = z.object({ memberId: z.string().min(1).max(200) })
  const memberAnswer = z.object({ member: memberSchema, standing: standingSchema })

  app.get('/api/members/:memberId', {
    onRequest: admin,
    schema: {
      tags: ['members'],
      summary: 'A member: names, email and phone, and their standing in the club',
      params: memberParams,
      response: { 200: memberAnswer, ...errors }
    },
  }, async (request) => await opts.members.get(request.actor, request.params.memberId))

  app.patch('/api/members/:memberId', {
    onRequest: admin,
    schema: {
      tags: ['members'],
      summary: 'Change a member\'s names, phone (null removes it) and standing: status (pending|active|suspended|lapsed|ended) with a reason, birth date, ' +
        'member since, valid until, identity check (the document\'s kind only; the caller is who checked), personal monthly allowance',
      params: memberParams,
      body: standingPatch.extend({
        firstName: z.string().trim().min(1).max(100).optional(),
        lastName: z.string().trim().min(1).max(100).optional(),
        phone: phone.nullable().optional(),
      }).strict(),
      response: { 200: memberAnswer, ...errors },
    },
  }, async (request) => await opts.members.change(request.actor, request.params.memberId, request.body))

  const departure = { memberId: z.string(), standing: standingSchema, chatLinksRemoved: z.number().int() }

  app.delete('/api/members/:memberId', {
    onRequest: admin,
    schema: {
      tags: ['members'],
      summary: 'The member leaves the club: the backend no longer counts them a member of it (their account stays, for other clubs), their standing ends, ' +
        'their chat links to the club go; 404 for anyone not a member',
      params: memberParams,
      response: { 200: z.object(departure), ...errors },
    },
  }, async (request) => await opts.members.leave(request.actor, request.params.memberId))

  app.post('/api/members/:memberId/erase', {
    onRequest: admin,
    schema: {
      tags: ['members'],
      summary: 'Erase the club\'s personal data of a member or former member: chat links, conversations, notifications, ' +
        'the standing\'s personal fields (the dispensing record keeps name and birth year until its retention ends)',
      params: memberParams,
      response: { 200: z.object({ ...departure, conversationsErased: z.number().int(), notificationsErased: z.number().int() }), ...errors },
    },
  }, async (request) => await opts.members.erase(request.actor, request.params.memberId))

  app.post('/api/members/:memberId/chat-link', {
    onRequest: admin,
    schema: {
      tags: ['members'],
      summary: 'A link code (10 minutes, single use) for a member with a phone: sent to the bot from that phone as `text` (LINK-<code>), ' +
        'it links the chat without a password',
      params: z.object({ memberId: z.string().min(1).max(200) }),
      response: { 201: z.object({ code: z.uuid(), text: z.string(), phone: z.string(), expiresAt: z.string() }), ...errors },
    },
  }, async (request, reply) => reply.code(201).send(await opts.members.chatLink(request.actor, request.params.memberId)))

  app.post('/api/members/:memberId/password-token', {
    onRequest: admin,
    schema: {
      tags: ['members'],
      summary: 'A new single-use password token (72 h) for a member without a password yet; 409 once they have one',
      params: z.object({ memberId: z.string().min(1).max(200) }),
      response: { 201: z.object({ passwordToken: z.string(), expiresAt: z.string() }), ...errors },
    },
  }, async (request, reply) => reply.code(201).send(await opts.members.reissuePasswordToken(request.actor, request.params.memberId)))

  app.post('/auth/customer/emailpass/update', {
    schema: {
      tags: ['auth'],
      summary: 'A member sets their password with the password token (Authorization: Bearer <token>), then logs in',
      headers: z.object({ authorization: z.string().min(1) }).loose(),
      body: z.object({ password: passwordSchema }),
      response: { 200: z.object({ success: z.boolean() }), ...errors },
    },
  }, async (request) => {
    await opts.members.setPassword(bearerToken(request.headers.authorization), request.body.password)
    return { success: true }
  })
}
