import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { InviteDoc } from '../model.ts'
import { acceptInviteBody, createInviteBody, idParams, listQuery } from '../requests.ts'
import { acceptInvite, createInvite, listInvites, resendInvite } from '../services/invites.ts'
import { userView } from '../views/people.ts'
import { actorOf, many, registeringOnly, registrationOf, staffOnly, type RouteDeps } from './shared.ts'

// Medusa's invite routes: /admin/invites (an admin's token), and /admin/invites/accept (the invitee's
// registration token, as Medusa authenticates it with allowUnregistered).

const inviteView = (i: InviteDoc) => ({ ...i, deleted_at: null })

export async function inviteRoutes (fastify: FastifyInstance, { ctx }: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const staff = staffOnly(ctx)

  app.post('/admin/invites/accept', {
    preValidation: registeringOnly(ctx, 'user'),
    schema: { querystring: z.looseObject({ token: z.string().optional() }), body: acceptInviteBody },
  }, async (request) => ({ user: userView(await acceptInvite(ctx, registrationOf(request), request.query.token, request.body)) }))

  app.post('/admin/invites', { preValidation: staff, schema: { body: createInviteBody } },
    async (request) => ({ invite: inviteView(await createInvite(ctx, actorOf(request), request.body)) }))

  app.get('/admin/invites', { preValidation: staff, schema: { querystring: listQuery(20).extend({ email: z.string().optional() }) } }, async (request) => {
    const actor = actorOf(request)
    const q = request.query
    const invites = (await listInvites(ctx)).filter((i) => (!q.email || i.email === q.email.toLowerCase()) &&
      (typeof i.metadata?.tenant_id !== 'string' || actor.tenants.includes(i.metadata.tenant_id)))
    return many('invites', invites.map(inviteView), q)
  })

  app.post('/admin/invites/:id/resend', { preValidation: staff, schema: { params: idParams } },
    async (request) => ({ invite: inviteView(await resendInvite(ctx, actorOf(request), request.params.id)) }))
}
