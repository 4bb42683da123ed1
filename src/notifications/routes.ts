import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ROLES } from '../tenants/roles.ts'
import { AppError, notFound } from '../errors.ts'
import { queryBoolean, queryInt } from '../schemas/common.ts'
import { cronSecretGuard } from './cron-auth.ts'
import { broadcastSchema, noticeContentSchema, notificationSchema } from './model.ts'
import { readerOf } from './service.ts'
import { NOTIFICATION_DOMAINS, NOTIFICATION_SOURCES } from './types.ts'

const listQuery = z.object({
  domain: z.enum(NOTIFICATION_DOMAINS).optional(),
  isRead: queryBoolean.optional(),
  source: z.enum(NOTIFICATION_SOURCES).optional(),
  page: queryInt(1, 1_000_000, 1),
  limit: queryInt(0, 100, 20),
})

// A notification id, or all of the caller's: exactly one of the two; both, or neither, is 400.
const markReadBody = z.object({
  notificationId: z.string().trim().min(1).max(200).optional(),
  all: z.literal(true).optional(),
}).superRefine((body, ctx) => {
  const given = Number(body.notificationId !== undefined) + Number(body.all !== undefined)
  if (given === 1) return
  const message = given === 0 ? 'Send notificationId or all: true' : 'Send either notificationId or all: true, not both'
  ctx.addIssue({ code: 'custom', path: ['notificationId'], message })
  ctx.addIssue({ code: 'custom', path: ['all'], message })
})

// Staff send a manual notice to one user (recipientId) or to everyone of a role (recipientRole alone).
const sendBody = noticeContentSchema.omit({ source: true }).extend({
  domain: noticeContentSchema.shape.domain.default('system'),
  event: noticeContentSchema.shape.event.default('manual.message'),
  severity: noticeContentSchema.shape.severity.default('info'),
  recipientId: z.string().trim().min(1).max(200).optional(),
  recipientRole: z.enum(ROLES).optional(),
}).refine((b) => b.recipientId !== undefined || b.recipientRole !== undefined, {
  path: ['recipientId'], message: 'Send recipientId (one user) or recipientRole (everyone of that role)',
})

const reminderReport = z.object({
  tenants: z.number().int(),
  reminders: z.object({ appointments: z.number().int(), tasks: z.number().int() }),
  expired: z.number().int(),
})

export async function notificationRoutes (fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const anyone = app.guard()
  const reader = (request: FastifyRequest) => readerOf(request.actor)

  app.get('/api/notifications', {
    onRequest: anyone,
    schema: {
      tags: ['notifications'],
      summary: 'The caller\'s notifications, newest first',
      querystring: listQuery,
      response: {
        200: z.object({
          notifications: z.array(notificationSchema),
          count: z.number().int(),
          pagination: z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int() })
        })
      },
    },
  }, async (request) => {
    const { page, limit, ...filters } = request.query
    const { notifications, total } = await app.notifications.list(reader(request), { ...filters, offset: (page - 1) * limit, limit })
    return { notifications, count: total, pagination: { page, limit, total } }
  })

  app.get('/api/notifications/unread-count', {
    onRequest: anyone,
    schema: {
      tags: ['notifications'], summary: 'How many of the caller\'s notifications are unread', response: { 200: z.object({ count: z.number().int() }) }
    },
  }, async (request) => ({ count: await app.notifications.unreadCount(reader(request)) }))

  app.post('/api/notifications/mark-read', {
    onRequest: anyone,
    schema: {
      tags: ['notifications'],
      summary: 'Mark one notification (by its externalId) or all of the caller\'s as read',
      body: markReadBody,
      response: { 200: z.union([z.object({ notification: notificationSchema }), z.object({ updated: z.number().int() })]) },
    },
  }, async (request) => {
    const { notificationId } = request.body
    if (notificationId === undefined) return { updated: await app.notifications.markAllRead(reader(request)) }
    const notification = await app.notifications.markRead(reader(request), notificationId)
    if (!notification) throw notFound('Notification')
    return { notification }
  })

  app.post('/api/notifications', {
    onRequest: app.guard({ roles: ['admin'] }),
    schema: {
      tags: ['notifications'],
      summary: 'Send a manual notification to one user or to everyone of a role (admin)',
      body: sendBody,
      response: { 201: z.union([z.object({ notification: notificationSchema }), z.object({ broadcast: broadcastSchema })]) },
    },
  }, async (request, reply) => {
    const { recipientId, recipientRole, ...content } = request.body
    const tenantId = request.actor.tenant.id
    if (recipientId === undefined) {
      const broadcast = await app.notifications.broadcast({
        ...content, source: 'manual', tenantId, recipientRole: recipientRole as NonNullable<typeof recipientRole>
      })
      return reply.status(201).send({ broadcast })
    }
    // a new externalId each time, so the store never treats it as a repeat
    const notification = await app.notifications.create({ ...content, source: 'manual', tenantId, recipientId, recipientRole: recipientRole ?? 'member' })
    if (!notification) throw new AppError('INTERNAL_ERROR', 'Notification was not stored')
    return reply.status(201).send({ notification })
  })

  app.post('/api/notifications/generate-reminders', {
    onRequest: cronSecretGuard(app.config.cronApiSecret),
    config: { rateLimit: false },
    schema: {
      tags: ['notifications'],
      summary: 'Scheduled job: appointment and overdue-task reminders, expired cleanup (Bearer CRON_API_SECRET)',
      response: { 200: reminderReport },
    },
  }, async () => {
    const outcome = await app.reminders.run()
    if (!outcome.ran) throw new AppError('CONFLICT', 'The reminder job is already running on another instance; try again later')
    return outcome.result
  })
}
