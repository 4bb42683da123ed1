import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { z } from 'zod'
import type { CatalogService } from '../catalog.ts'
import type { CatalogKind } from '../model.ts'
import { lightBody, spaceBody, strainBody } from '../requests.ts'
import { catalogResponses } from '../responses.ts'
import { CROP_KEEPERS } from '../service.ts'

const KINDS = [
  { kind: 'strains', one: 'strain', body: strainBody, list: catalogResponses.strains, created: catalogResponses.strain },
  { kind: 'spaces', one: 'space', body: spaceBody, list: catalogResponses.spaces, created: catalogResponses.space },
  { kind: 'lights', one: 'light', body: lightBody, list: catalogResponses.lights, created: catalogResponses.light },
] as const satisfies ReadonlyArray<{ kind: CatalogKind, one: string, body: z.ZodType, list: z.ZodType, created: z.ZodType }>

/** The tenant's catalog: `GET /api/strains` answers `{strains, count}`, `POST` adds one; the same for spaces and lights. */
export async function catalogRoutes (fastify: FastifyInstance, { catalog }: { catalog: CatalogService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const onRequest = app.guard({ roles: CROP_KEEPERS })
  const tags = ['catalog']

  for (const { kind, one, body, list, created } of KINDS) {
    app.get(`/api/${kind}`, { onRequest, schema: { tags, summary: `The club's ${kind}`, response: { 200: list } } }, async (request) => {
      const items = await catalog.list(request.actor.tenant.id, kind)
      return { [kind]: items, count: items.length } as z.infer<typeof list>
    })
    app.post(`/api/${kind}`, {
      onRequest, schema: { tags, summary: `Add one of the club's ${kind}`, body, response: { 201: created } }
    }, async (request, reply) => {
      const item = await catalog.add(request.actor.tenant.id, kind, request.body as Parameters<CatalogService['add']>[2])
      return reply.status(201).send({ [one]: item } as z.infer<typeof created>)
    })
  }
}
