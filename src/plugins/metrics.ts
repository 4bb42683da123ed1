import Fastify, { type FastifyInstance, type onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client'
import { secretBearerGuard } from '../auth/secret-guard.ts'
import { errorHandler } from '../errors.ts'

// One Prometheus registry per app: each domain registers its own counters and gauges on `app.metrics`, so two
// apps in one process (tests) never share or clash over metric names. This plugin adds the process metrics,
// the HTTP histogram and the scrape route (docs/operations.md).

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry
  }
}

export default fp(async (app) => {
  const registry = new Registry()
  app.decorate('metrics', registry)
  collectDefaultMetrics({ register: registry })

  const http = new Histogram({
    name: 'club_http_request_duration_seconds',
    help: 'HTTP requests answered, by method, route pattern (never the raw URL) and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  })
  // a callback hook, not an async one: it runs after every answer, and a promise each time is measurable there
  app.addHook('onResponse', (request, reply, done) => {
    http.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode }, reply.elapsedTime / 1000)
    done()
  })

  const { token, port } = app.config.metrics
  if (port === undefined && token === undefined && app.config.env === 'production') {
    app.log.warn('/metrics is off: production serves it only with METRICS_TOKEN or on METRICS_PORT')
    return
  }
  const guard = token ? secretBearerGuard(token, 'A valid metrics token is required') : undefined
  if (port === undefined) {
    scrapeRoute(app, registry, guard)
    return
  }
  // Its own listener, started with the API's, so that /metrics can be reached from the monitoring network only.
  const server = Fastify({ logger: false })
  server.setErrorHandler(errorHandler)
  scrapeRoute(server, registry, guard)
  app.addHook('onListen', async () => {
    await server.listen({ port, host: app.config.host })
    app.log.info({ port }, 'metrics listening')
  })
  app.addHook('onClose', async () => { await server.close() })
}, { name: 'metrics' })

function scrapeRoute (app: FastifyInstance, registry: Registry, guard: onRequestHookHandler | undefined): void {
  app.get('/metrics', {
    config: { rateLimit: false },
    schema: { hide: true },
    ...(guard ? { onRequest: guard } : {}),
  }, async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()))
}
