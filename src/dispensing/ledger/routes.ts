import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { AppError } from '../../errors.ts'
import { errorResponses as errors, pageQuery } from '../../schemas/common.ts'
import { calendarDay } from '../standing.ts'
import { ledgerEntrySchema } from './chain.ts'
import { toCsv } from './csv.ts'
import { RECORD_KEEPERS, type LedgerService } from './service.ts'

// /api/dispensing (the club's dispensing record: list, CSV, one entry, reverse, verify) and /api/reports/dispensing.

const entryParams = z.object({ entryId: z.string().min(1).max(40) })
const verification = z.union([
  z.object({ ok: z.literal(true), entries: z.number(), head: z.string() }),
  z.object({
    ok: z.literal(false), entries: z.number(), broken: z.object({ id: z.string(), seq: z.number(), problem: z.enum(['missing', 'content', 'link']) })
  }),
])
const strainReport = z.object({
  productId: z.string().nullable(),
  product: z.string(),
  grams: z.number(),
  thcPercent: z.number().nullable(),
  cbdPercent: z.number().nullable(),
  dispensations: z.number()
})
const memberReport = z.object({
  memberId: z.string(), memberName: z.string(), memberBirthYear: z.number().nullable(), grams: z.number(), dispensations: z.number()
})

/** CSV when the caller asks for it before (or without) JSON. */
function wantsCsv (accept: string | undefined): boolean {
  const a = (accept ?? '').toLowerCase()
  const csv = a.indexOf('text/csv')
  const json = a.indexOf('application/json')
  return csv >= 0 && (json < 0 || csv < json)
}

export async function ledgerRoutes (fastify: FastifyInstance, { ledger }: { ledger: LedgerService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const keepers = app.guard({ roles: RECORD_KEEPERS })
  const tags = ['dispensing']

  app.get('/api/dispensing', {
    onRequest: keepers,
    schema: {
      tags,
      summary: 'The dispensing record, oldest first, filtered by member, product and club days (inclusive); Accept: text/csv gives CSV',
      querystring: pageQuery(50, 1000).extend({
        memberId: z.string().min(1).max(200).optional(),
        productId: z.string().min(1).max(200).optional(),
        from: calendarDay.optional(),
        to: calendarDay.optional(),
      }),
      response: {
        200: z.union([
          z.object({ entries: z.array(ledgerEntrySchema), count: z.number(), offset: z.number(), limit: z.number() }), z.string().describe('text/csv')
        ]),
        ...errors
      },
    },
  }, async (request, reply) => {
    const q = request.query
    const { entries, count } = await ledger.list(request.actor, q)
    if (wantsCsv(request.headers.accept)) {
      // the text as it is: the route's JSON serializer is for the JSON answer
      return await reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="dispensing.csv"').serializer(String).send(
        toCsv(entries)
      )
    }
    return { entries, count, offset: q.offset, limit: q.limit }
  })

  app.get('/api/dispensing/verify', {
    onRequest: keepers,
    schema: {
      tags,
      summary: 'Checks the whole hash chain: ok with the head hash, or the first entry missing, changed or out of chain',
      response: { 200: verification, ...errors }
    },
  }, async (request) => await ledger.verify(request.actor))

  app.get('/api/dispensing/:entryId', {
    onRequest: keepers,
    schema: { tags, summary: 'One entry of the dispensing ledger', params: entryParams, response: { 200: z.object({ entry: ledgerEntrySchema }), ...errors } },
  }, async (request) => ({ entry: await ledger.entry(request.actor, request.params.entryId) }))

  app.post('/api/dispensing/:entryId/reverse', {
    onRequest: keepers,
    schema: {
      tags,
      summary: 'Corrects an entry with a reversing entry (its grams back to the member); a reversal or an entry reversed already is 409',
      params: entryParams,
      body: z.object({ reason: z.string().trim().min(3).max(500) }).strict(),
      response: { 201: z.object({ entry: ledgerEntrySchema }), ...errors },
    },
  }, async (request, reply) => reply.code(201).send({ entry: await ledger.reverse(request.actor, request.params.entryId, request.body.reason) }))

  app.get('/api/reports/dispensing', {
    onRequest: keepers,
    schema: {
      tags,
      summary: '?year=YYYY: per strain, grams and average THC/CBD (the KCanG yearly report); ?month=YYYY-MM: each member\'s total',
      querystring: z.object({
        year: z.coerce.number().int().min(2000).max(2999).optional(),
        month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'YYYY-MM').optional(),
      }).strict(),
      response: {
        200: z.union([
          z.object({ year: z.number(), strains: z.array(strainReport), grams: z.number() }),
          z.object({ month: z.string(), members: z.array(memberReport), grams: z.number() }),
        ]),
        ...errors,
      },
    },
  }, async (request) => {
    const { year, month } = request.query
    if ((year === undefined) === (month === undefined)) {
      throw new AppError('VALIDATION_ERROR', 'Give year=YYYY or month=YYYY-MM', { details: { errors: { year: ['year or month, one of them'] } } })
    }
    return year !== undefined ? await ledger.yearReport(request.actor, year) : await ledger.monthReport(request.actor, month as string)
  })
}
