import fp from 'fastify-plugin'
import { Registry } from 'prom-client'

// One Prometheus registry per app: each domain registers its own counters and gauges on `app.metrics`, so two
// apps in one process (tests) never share or clash over metric names.

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry
  }
}

export default fp(async (app) => {
  app.decorate('metrics', new Registry())
}, { name: 'metrics' })
