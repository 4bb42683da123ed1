import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { errorResponses as errors } from '../schemas/common.ts'
import { CLUB_ADMINS } from './roles.ts'
import { passwordSchema } from './schemas.ts'
import type { StaffService } from './staff.ts'

// /api/staff: a club's admins list, invite, change and remove staff; /api/staff/invites/accept: the invitee.

const staffRole = z.enum(['admin', 'grower'])
const staffSchema = z.object({ id: z.string(), email: z.string(), name: z.string(), role: staffRole }).meta({ id: 'StaffMember' })
const inviteSchema = z.object({ email: z.string(), name: z.string(), role: staffRole, tenantId: z.string(), expiresAt: z.string() }).meta({ id: 'StaffInvite' })
const staffParams = z.object({ staffId: z.string().min(1).max(200) })

const view = (s: { id: string, email: string, name: string, role: string }) => ({
  id: s.id, email: s.email, name: s.name, role: s.role as z.infer<typeof staffRole>
})

export async function staffRoutes (fastify: FastifyInstance, opts: { staff: StaffService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const admin = app.guard({ roles: CLUB_ADMINS })
  const tags = ['staff']

  app.get('/api/staff', {
    onRequest: admin,
    schema: { tags, summary: 'The club\'s staff', response: { 200: z.object({ staff: z.array(staffSchema) }), ...errors } },
  }, async (request) => ({ staff: (await opts.staff.list(request.actor)).map(view) }))

  app.post('/api/staff', {
    onRequest: admin,
    schema: {
      tags,
      summary: 'Invite someone as admin or grower: answers a single-use invite token, valid a day, to hand to them',
      body: z.object({ email: z.email().max(320), name: z.string().trim().min(1).max(100), role: staffRole }),
      response: { 201: z.object({ invite: inviteSchema, token: z.string() }), ...errors },
    },
  }, async (request, reply) => reply.code(201).send(await opts.staff.invite(request.actor, request.body)))

  app.post('/api/staff/invites/accept', {
    schema: {
      tags,
      summary: 'The invitee sets their password with the invite token, then logs in at /auth/user/emailpass',
      body: z.object({ token: z.string().min(1).max(200), password: passwordSchema }),
      response: { 201: z.object({ staff: staffSchema }), ...errors },
    },
  }, async (request, reply) => reply.code(201).send({ staff: view(await opts.staff.accept(request.body.token, request.body.password)) }))

  app.patch('/api/staff/:staffId', {
    onRequest: admin,
    schema: {
      tags,
      summary: 'Change a staff member\'s role (the club\'s last admin stays admin: 409)',
      params: staffParams,
      body: z.object({ role: staffRole }),
      response: { 200: z.object({ staff: staffSchema }), ...errors },
    },
  }, async (request) => ({ staff: view(await opts.staff.changeRole(request.actor, request.params.staffId, request.body.role)) }))

  app.delete('/api/staff/:staffId', {
    onRequest: admin,
    schema: { tags, summary: 'Remove a staff member (never the club\'s last admin: 409)', params: staffParams, response: { 204: z.null(), ...errors } },
  }, async (request, reply) => {
    await opts.staff.remove(request.actor, request.params.staffId)
    return reply.code(204).send(null)
  })
}
