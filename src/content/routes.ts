import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ROLES } from '../tenants/roles.ts'
import { isoTimestamp, pageQuery } from '../schemas/common.ts'
import { APPOINTMENT_STATUSES, appointmentSchema, TASK_STATUSES, taskSchema } from './model.ts'
import { CONTENT_KEEPERS, type ContentService } from './service.ts'

// Field sets without defaults: a PATCH must leave unsent fields alone (zod 4 applies defaults inside partial()).
const appointmentFields = z.object({
  memberId: z.string().trim().min(1).max(200),
  title: z.string().trim().min(1).max(200),
  startsAt: isoTimestamp,
  status: z.enum(APPOINTMENT_STATUSES),
})
const taskFields = z.object({
  assigneeId: z.string().trim().min(1).max(200),
  assigneeRole: z.enum(ROLES),
  title: z.string().trim().min(1).max(200),
  dueDate: z.iso.date(),
  status: z.enum(TASK_STATUSES),
})
// staff book an appointment on the member's behalf, so it is confirmed unless they say otherwise
const appointmentInput = appointmentFields.extend({ status: appointmentFields.shape.status.default('confirmed') })
const taskInput = taskFields.extend({ assigneeRole: taskFields.shape.assigneeRole.default('grower'), status: taskFields.shape.status.default('PENDING') })
const atLeastOne = (value: object): boolean => Object.keys(value).length > 0
const appointmentPatch = appointmentFields.omit({ memberId: true }).partial()
  .refine(atLeastOne, 'Send at least one of title, startsAt, status')
const taskPatch = taskFields.partial()
  .refine(atLeastOne, 'Send at least one of assigneeId, assigneeRole, title, dueDate, status')

const listEcho = { count: z.number().int(), offset: z.number().int(), limit: z.number().int() }

// Staff manage the appointments and tasks the reminder job reads (admin only).
export async function contentRoutes (fastify: FastifyInstance, { content }: { content: ContentService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const admin = app.guard({ roles: CONTENT_KEEPERS })

  app.get('/api/appointments', {
    onRequest: admin,
    schema: {
      tags: ['content'],
      summary: 'List the club\'s appointments, earliest first',
      querystring: pageQuery(20).extend({
        status: z.enum(APPOINTMENT_STATUSES).optional(),
        memberId: z.string().min(1).optional(),
        from: isoTimestamp.optional().describe('startsAt from (inclusive)'),
        to: isoTimestamp.optional().describe('startsAt before (exclusive)'),
      }),
      response: { 200: z.object({ appointments: z.array(appointmentSchema), ...listEcho }) },
    },
  }, async (request) => {
    const { from, to, ...q } = request.query
    const { items, total } = await content.listAppointments(request.actor, {
      ...q,
      from: from === undefined ? undefined : Date.parse(from),
      to: to === undefined ? undefined : Date.parse(to),
    })
    return { appointments: items, count: total, offset: q.offset, limit: q.limit }
  })

  app.post('/api/appointments', {
    onRequest: admin,
    schema: {
      tags: ['content'], summary: 'Book an appointment for a member', body: appointmentInput, response: { 201: z.object({ appointment: appointmentSchema }) }
    },
  }, async (request, reply) => {
    return reply.status(201).send({ appointment: await content.bookAppointment(request.actor, request.body) })
  })

  app.patch('/api/appointments/:appointmentId', {
    onRequest: admin,
    schema: {
      tags: ['content'],
      summary: 'Change an appointment (confirm, cancel, move)',
      params: z.object({ appointmentId: z.string().min(1) }),
      body: appointmentPatch,
      response: { 200: z.object({ appointment: appointmentSchema }) }
    },
  }, async (request) => ({ appointment: await content.changeAppointment(request.actor, request.params.appointmentId, request.body) }))

  app.get('/api/tasks', {
    onRequest: admin,
    schema: {
      tags: ['content'],
      summary: 'List the club\'s tasks, earliest due first',
      querystring: pageQuery(20).extend({ status: z.enum(TASK_STATUSES).optional(), assigneeId: z.string().min(1).optional() }),
      response: { 200: z.object({ tasks: z.array(taskSchema), ...listEcho }) },
    },
  }, async (request) => {
    const { items, total } = await content.listTasks(request.actor, request.query)
    return { tasks: items, count: total, offset: request.query.offset, limit: request.query.limit }
  })

  app.post('/api/tasks', {
    onRequest: admin,
    schema: { tags: ['content'], summary: 'Create a task for a staff member', body: taskInput, response: { 201: z.object({ task: taskSchema }) } },
  }, async (request, reply) => {
    return reply.status(201).send({ task: await content.createTask(request.actor, request.body) })
  })

  app.patch('/api/tasks/:taskId', {
    onRequest: admin,
    schema: {
      tags: ['content'],
      summary: 'Change a task (for example mark it DONE)',
      params: z.object({ taskId: z.string().min(1) }),
      body: taskPatch,
      response: { 200: z.object({ task: taskSchema }) }
    },
  }, async (request) => ({ task: await content.changeTask(request.actor, request.params.taskId, request.body) }))
}
