import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { parseInput, UnauthorizedError } from '../errors.ts'
import type { InviteDoc } from '../model.ts'
import { acceptInvite, createInvite, listInvites, resendInvite } from '../services/invites.ts'
import { actorFrom, registrationIdentity, type Actor } from '../tokens.ts'
import { userView } from '../views/people.ts'
import { idParams, listQuery, many, query, type RouteDeps } from './shared.ts'

// Medusa's invite routes: /admin/invites (an admin's token), and /admin/invites/accept (the invitee's
// registration token, as Medusa authenticates it with allowUnregistered).

const inviteView = (i: InviteDoc) => ({ ...i, deleted_at: null })

export async function inviteRoutes (app: FastifyInstance, { ctx }: RouteDeps): Promise<void> {
  const staffActor = async (request: FastifyRequest): Promise<Actor> => {
    const actor = await actorFrom(ctx.jwtSecret, request.headers.authorization)
    if (!actor || actor.type !== 'user') throw new UnauthorizedError()
    return actor
  }

  app.post('/admin/invites/accept', async (request) => {
    const registration = await registrationIdentity(ctx.jwtSecret, request.headers.authorization, 'user')
    const { token } = parseInput(z.looseObject({ token: z.string().optional() }), request.query)
    return { user: userView(await acceptInvite(ctx, registration, token, request.body)) }
  })

  app.post('/admin/invites', async (request) => ({ invite: inviteView(await createInvite(ctx, await staffActor(request), request.body)) }))

  app.get('/admin/invites', async (request) => {
    const actor = await staffActor(request)
    const q = query(listQuery(20).extend({ email: z.string().optional() }), request)
    const invites = (await listInvites(ctx)).filter((i) => (!q.email || i.email === q.email.toLowerCase()) &&
      (typeof i.metadata?.tenant_id !== 'string' || actor.tenants.includes(i.metadata.tenant_id)))
    return many('invites', invites.map(inviteView), q)
  })

  app.post('/admin/invites/:id/resend', async (request) => {
    const { id } = parseInput(idParams, request.params)
    return { invite: inviteView(await resendInvite(ctx, await staffActor(request), id)) }
  })
}
