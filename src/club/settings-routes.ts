import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { errorEnvelopeSchema } from '../schemas/common.ts'
import { chatTemplatesSchema, clubNameSchema, LOCALES, pickupSchema, timeZoneSchema, type Tenant } from '../tenants/model.ts'
import { CLUB_ADMINS } from './roles.ts'
import type { ClubSettings } from './settings.ts'

// GET/PATCH /api/club: the settings of the caller's club that its admins may change themselves.

const clubSchema = z.object({
  id: z.string(),
  name: z.string(),
  locale: z.enum(LOCALES),
  timeZone: z.string(),
  currency: z.string(),
  plan: z.object({ maxActiveCrops: z.number() }),
  pickup: pickupSchema.nullable(),
  chatTemplates: chatTemplatesSchema.describe(
    'Template name and language per chat update sent outside the 24-hour window; absent: the default name, the member\'s language'
  ),
}).meta({ id: 'Club' })

const clubPatch = z.object({
  name: clubNameSchema.optional(),
  locale: z.enum(LOCALES).optional(),
  timeZone: timeZoneSchema.optional(),
  /** null clears the pickup details. */
  pickup: pickupSchema.nullable().optional(),
  /** Replaces the club's template choices whole; {} goes back to the defaults. */
  chatTemplates: chatTemplatesSchema.optional(),
}).strict()

const clubView = (t: Tenant): z.infer<typeof clubSchema> => ({
  id: t.id,
  name: t.name,
  locale: t.locale,
  timeZone: t.timeZone,
  currency: t.currency,
  plan: t.plan,
  pickup: t.pickup ?? null,
  chatTemplates: t.chatTemplates ?? {},
})

export async function clubSettingsRoutes (fastify: FastifyInstance, { settings }: { settings: ClubSettings }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const admin = app.guard({ roles: CLUB_ADMINS })
  const errors = { '4xx': errorEnvelopeSchema }

  app.get('/api/club', {
    onRequest: admin,
    schema: { tags: ['club'], summary: 'The club\'s settings', response: { 200: z.object({ club: clubSchema }), ...errors } },
  }, async (request) => ({ club: clubView(settings.read(request.actor)) }))

  app.patch('/api/club', {
    onRequest: admin,
    schema: {
      tags: ['club'],
      summary: 'Change the club\'s name, language (es|en), IANA time zone, pickup details or chat templates',
      body: clubPatch,
      response: { 200: z.object({ club: clubSchema }), ...errors },
    },
  }, async (request) => ({ club: clubView(await settings.change(request.actor, request.body)) }))
}
