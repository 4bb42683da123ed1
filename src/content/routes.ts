import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ROLES } from '../auth/tokens.ts'
import { notFound } from '../errors.ts'
import { isoTimestamp, pageQuery } from '../schemas/common.ts'
import { APPOINTMENT_STATUSES, appointmentSchema, TASK_STATUSES, taskSchema } from './model.ts'

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
export async function contentRoutes (fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const admin = app.guard({ roles: ['admin'] })
  const now = (): string => new Date().toISOString()

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
    const { items, total } = await app.content.listAppointments(request.actor.tenant.id, {
      ...q,
      from: from === undefined ? undefined : Date.parse(from),
      to: to === undefined ? undefined : Date.parse(to),
    })
    return { appointments: items, count: total, offset: q.offset, limit: q.limit }
  })

  app.post('/api/appointments', {
    onRequest: admin,
    schema: { tags: ['content'], summary: 'Book an appointment for a member', body: appointmentInput, response: { 201: z.object({ appointment: appointmentSchema }) } },
  }, async (request, reply) => {
    const at = now()
    const appointment = { id: `appt_${randomUUID()}`, tenantId: request.actor.tenant.id, ...request.body, startsAt: new Date(request.body.startsAt).toISOString(), createdAt: at, updatedAt: at }
    await app.content.putAppointment(appointment)
    return reply.status(201).send({ appointment })
  })

  app.patch('/api/appointments/:appointmentId', {
    onRequest: admin,
    schema: { tags: ['content'], summary: 'Change an appointment (confirm, cancel, move)', params: z.object({ appointmentId: z.string().min(1) }), body: appointmentPatch, response: { 200: z.object({ appointment: appointmentSchema }) } },
  }, async (request) => {
    const found = await app.content.getAppointment(request.actor.tenant.id, request.params.appointmentId)
    if (!found) throw notFound('Appointment')
    const { startsAt, ...rest } = request.body
    const appointment = { ...found, ...rest, ...(startsAt ? { startsAt: new Date(startsAt).toISOString() } : {}), updatedAt: now() }
    await app.content.putAppointment(appointment)
    return { appointment }
  })

  app.get('/api/tasks', {
    onRequest: admin,
    schema: {
      tags: ['content'],
      summary: 'List the club\'s tasks, earliest due first',
      querystring: pageQuery(20).extend({ status: z.enum(TASK_STATUSES).optional(), assigneeId: z.string().min(1).optional() }),
      response: { 200: z.object({ tasks: z.array(taskSchema), ...listEcho }) },
    },
  }, async (request) => {
    const { items, total } = await app.content.listTasks(request.actor.tenant.id, request.query)
    return { tasks: items, count: total, offset: request.query.offset, limit: request.query.limit }
  })

  app.post('/api/tasks', {
    onRequest: admin,
    schema: { tags: ['content'], summary: 'Create a task for a staff member', body: taskInput, response: { 201: z.object({ task: taskSchema }) } },
  }, async (request, reply) => {
    const at = now()
    const task = { id: `task_${randomUUID()}`, tenantId: request.actor.tenant.id, ...request.body, createdAt: at, updatedAt: at }
    await app.content.putTask(task)
    return reply.status(201).send({ task })
  })

  app.patch('/api/tasks/:taskId', {
    onRequest: admin,
    schema: { tags: ['content'], summary: 'Change a task (for example mark it DONE)', params: z.object({ taskId: z.string().min(1) }), body: taskPatch, response: { 200: z.object({ task: taskSchema }) } },
  }, async (request) => {
    const found = await app.content.getTask(request.actor.tenant.id, request.params.taskId)
    if (!found) throw notFound('Task')
    const task = { ...found, ...request.body, updatedAt: now() }
    await app.content.putTask(task)
    return { task }
  })
}
