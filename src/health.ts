import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { request } from 'undici'
import { z } from 'zod'
import { secretBearerMatcher } from './auth/secret-guard.ts'
import { evictionPolicy } from './plugins/redis.ts'
import type { RedisClient } from './stores/redis-client.ts'

// /ready answers load balancers and monitors often, so each backend is asked at most once per READY_CACHE_MS
// and waited for at most READY_TIMEOUT_MS. Only Redis decides readiness: a club whose backend is down is
// reported, while the other clubs (and everything but that club's orders) keep working.
const READY_TIMEOUT_MS = 2000
const READY_CACHE_MS = 5000

const backendState = z.enum(['up', 'down', 'unconfigured'])
type BackendState = z.infer<typeof backendState>
type CommerceReport = Record<string, BackendState>

/** A backend is up when `GET {base}/health` (Medusa v2's, and the embedded backend's) answers 2xx in time. */
async function probe (baseUrl: string): Promise<'up' | 'down'> {
  try {
    const res = await request(`${baseUrl}/health`, { signal: AbortSignal.timeout(READY_TIMEOUT_MS) })
    await res.body.dump()
    return res.statusCode >= 200 && res.statusCode < 300 ? 'up' : 'down'
  } catch {
    return 'down'
  }
}

/** Each club's backend state; clubs sharing a backend share one probe. */
async function commerceReport (app: FastifyInstance): Promise<CommerceReport> {
  const probes = new Map<string, Promise<'up' | 'down'>>()
  const entries = await Promise.all((await app.tenants.list()).map(async (tenant): Promise<[string, BackendState]> => {
    let baseUrl: string
    try {
      baseUrl = app.commerce.medusaFor(tenant).settings.baseUrl
    } catch {
      return [tenant.id, 'unconfigured']
    }
    const pending = probes.get(baseUrl) ?? probe(baseUrl)
    probes.set(baseUrl, pending)
    return [tenant.id, await pending]
  }))
  return Object.fromEntries(entries)
}

export default fp(async (fastify: FastifyInstance) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const exempt = { rateLimit: false } as const
  app.get('/health', {
    config: exempt,
    schema: { tags: ['health'], summary: 'Process is up', security: [], response: { 200: z.object({ status: z.literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }))

  let cached: { at: number, report: Promise<CommerceReport> } | undefined
  const report = async (): Promise<CommerceReport> => {
    if (!cached || Date.now() - cached.at > READY_CACHE_MS) {
      const pending = commerceReport(fastify)
      cached = { at: Date.now(), report: pending }
      pending.catch(() => { if (cached?.report === pending) cached = undefined })
    }
    return await cached.report
  }
  // An operator may change the policy while the service runs (CONFIG SET): read again, as often as the backends.
  let policy: { at: number, value: string } | undefined
  const currentPolicy = async (redis: RedisClient): Promise<string> => {
    if (!policy || Date.now() - policy.at > READY_CACHE_MS) policy = { at: Date.now(), value: await evictionPolicy(redis) }
    return policy.value
  }

  // The detail names every club: only for the metrics token (or, without one, outside production, as /metrics).
  const { token } = fastify.config.metrics
  const tokenMatches = token ? secretBearerMatcher(token) : undefined
  const mayReadDetail = (authorization: string | undefined): boolean =>
    tokenMatches ? tokenMatches(authorization) : fastify.config.env !== 'production'
  const production = fastify.config.env === 'production'

  app.get('/ready', {
    config: exempt,
    schema: {
      tags: ['health'],
      summary: 'Ready when Redis is reachable and keeps its keys (always on in-memory stores). With the metrics token: ' +
        'Redis\'s state and eviction policy, and each club\'s commerce backend',
      security: [],
      response: {
        200: z.object({
          status: z.literal('ready'),
          redis: z.enum(['up', 'memory']).optional(),
          maxmemoryPolicy: z.string().optional(),
          commerce: z.record(z.string(), backendState).optional(),
        }),
        503: z.object({ status: z.literal('unavailable'), redis: z.enum(['down', 'evicting']).optional(), maxmemoryPolicy: z.string().optional() }),
      },
    },
  }, async (request, reply) => {
    const detail = mayReadDetail(request.headers.authorization)
    let maxmemoryPolicy: string | undefined
    try {
      await app.redis?.ping()
      if (app.redis) maxmemoryPolicy = await currentPolicy(app.redis)
    } catch {
      return reply.status(503).send(detail ? { status: 'unavailable' as const, redis: 'down' as const } : { status: 'unavailable' as const })
    }
    // An evicting Redis loses keys silently: refused at start in production, and so out of the balancer there too.
    if (production && maxmemoryPolicy !== undefined && maxmemoryPolicy !== 'noeviction') {
      return reply.status(503).send(
        detail ? { status: 'unavailable' as const, redis: 'evicting' as const, maxmemoryPolicy } : { status: 'unavailable' as const }
      )
    }
    if (!detail) return { status: 'ready' as const }
    // A club record that cannot be read is logged, not a reason to take every instance out of the balancer.
    const commerce = await report().catch((err: unknown) => {
      request.log.warn({ err }, 'commerce report failed')
      return {}
    })
    return { status: 'ready' as const, redis: app.redis ? 'up' as const : 'memory' as const, ...(maxmemoryPolicy ? { maxmemoryPolicy } : {}), commerce }
  })
}, { name: 'health', dependencies: ['redis', 'tenants', 'commerce'] })
