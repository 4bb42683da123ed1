import cors from '@fastify/cors'
import helmet from '@fastify/helmet'
import Fastify from 'fastify'
import fp from 'fastify-plugin'

// Security headers on every answer (helmet's defaults: a same-origin content security policy, no sniffing, no
// framing, HSTS), which /docs (Swagger UI, served as files without inline scripts) works under. CORS is off
// unless CORS_ORIGINS lists the browser origins allowed; tokens travel in a header, so no credentials mode.
export default fp(async (app) => {
  const headers = Object.entries(await helmetHeaders())
  // on the raw response, as helmet does, so that a hijacked reply (the SSE streams) carries them too
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value)
    done()
  })
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

/**
 * The headers @fastify/helmet sets with its defaults, learnt once at start from one answer of a throwaway
 * instance: they are the same for every request (no CSP nonces), while the plugin builds helmet's middleware
 * again, its policy parsed anew, on every request (about 8% of the webhook's CPU).
 */
async function helmetHeaders (): Promise<Record<string, string>> {
  const probe = Fastify({ logger: false })
  await probe.register(helmet, { global: true })
  probe.get('/with', async () => '')
  probe.get('/without', { helmet: false }, async () => '')
  try {
    const [withHelmet, without] = await Promise.all([probe.inject('/with'), probe.inject('/without')])
    return Object.fromEntries(Object.entries(withHelmet.headers)
      .filter(([name]) => without.headers[name] === undefined)
      .map(([name, value]) => [name, String(value)]))
  } finally {
    await probe.close()
  }
}
