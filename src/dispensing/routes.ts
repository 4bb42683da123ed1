import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { errorResponses as errors } from '../schemas/common.ts'
import { quotaSchema, rulesAnswer, rulesPatch, standingSchema } from './schemas.ts'
import { RULE_READERS, RULE_WRITERS, type DispensingService } from './service.ts'

// /api/club/rules (the club's dispensing rules) and the members' quota; the member reads their own under /me.

const memberParams = z.object({ memberId: z.string().min(1).max(200) })

export async function rulesRoutes (fastify: FastifyInstance, { dispensing }: { dispensing: DispensingService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const anyone = app.guard()

  app.get('/api/club/rules', {
    onRequest: app.guard({ roles: RULE_READERS }),
    schema: { tags: ['club'], summary: 'The club\'s dispensing rules (admins and growers)', response: { 200: rulesAnswer, ...errors } },
  }, async (request) => ({ rules: dispensing.rules(request.actor) }))

  app.patch('/api/club/rules', {
    onRequest: app.guard({ roles: RULE_WRITERS }),
    schema: {
      tags: ['club'],
      summary: 'Change the rules: {"preset": "de-kcang"} starts from a preset (none, de-kcang, uy-club, ar-reprocann, es-csc); any field given is set on top',
      body: rulesPatch,
      response: { 200: rulesAnswer, ...errors },
    },
  }, async (request) => ({ rules: await dispensing.changeRules(request.actor, request.body) }))

  app.get('/api/members/me/quota', {
    onRequest: anyone,
    schema: {
      tags: ['members'],
      summary: 'The caller\'s own quota: used, reserved, limit and remaining per period in force',
      response: { 200: z.object({ quota: quotaSchema }), ...errors }
    },
  }, async (request) => ({ quota: await dispensing.quota(request.actor, request.actor.sub) }))

  app.get('/api/members/me/standing', {
    onRequest: anyone,
    schema: { tags: ['members'], summary: 'The caller\'s own standing in the club', response: { 200: z.object({ standing: standingSchema }), ...errors } },
  }, async (request) => ({ standing: await dispensing.ownStanding(request.actor) }))

  app.get('/api/members/:memberId/quota', {
    onRequest: anyone,
    schema: {
      tags: ['members'],
      summary: 'A member\'s quota (admins; a member their own, else 404)',
      params: memberParams,
      response: { 200: z.object({ quota: quotaSchema }), ...errors },
    },
  }, async (request) => ({ quota: await dispensing.quota(request.actor, request.params.memberId) }))
}
