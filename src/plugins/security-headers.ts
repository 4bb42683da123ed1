import cors from '@fastify/cors'
import helmet from '@fastify/helmet'
import fp from 'fastify-plugin'

// Security headers on every answer (helmet's defaults: a same-origin content security policy, no sniffing, no
// framing, HSTS), which /docs (Swagger UI, served as files without inline scripts) works under. CORS is off
// unless CORS_ORIGINS lists the browser origins allowed; tokens travel in a header, so no credentials mode.
export default fp(async (app) => {
  await app.register(helmet, { global: true })
  const origins = app.config.corsOrigins
  if (origins.length === 0) return
  await app.register(cors, {
    origin: [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'tenant-id', 'x-request-id', 'idempotency-key'],
    exposedHeaders: ['retry-after', 'x-request-id'],
    maxAge: 600,
  })
}, { name: 'security-headers' })
