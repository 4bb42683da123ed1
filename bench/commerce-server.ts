import { buildCommerceBackend } from '../src/embedded-commerce/backend.ts'
import { createRedis } from '../src/plugins/redis.ts'

// The bench's embedded commerce backend in a process of its own (bench/commerce.ts starts it), so that its work
// does not share an event loop with the load generator. It counts the requests it receives, with their method and
// URL; GET /bench/received?from=N answers how many in all and those from the Nth on (this route and /health are
// not counted). Env: PORT, HOST, REDIS_URL, JWT_SECRET.

const env = (name: string): string => {
  const value = process.env[name]
  if (!value) throw new Error(`bench/commerce-server.ts: ${name} is not set`)
  return value
}

const redis = createRedis(env('REDIS_URL'), 'bench-commerce:')
await redis.connect()
const backend = await buildCommerceBackend({ redis, jwtSecret: env('JWT_SECRET'), seed: true })
const paths: string[] = []
backend.server.on('request', (req: { method?: string, url?: string }) => {
  if (req.url === '/health' || req.url?.startsWith('/bench/')) return
  paths.push(`${req.method ?? ''} ${req.url ?? ''}`)
})
backend.get('/bench/received', async (request) => {
  const from = Number((request.query as { from?: string }).from ?? paths.length)
  return { total: paths.length, paths: paths.slice(from) }
})
await backend.listen({ port: Number(env('PORT')), host: env('HOST') })
process.once('SIGTERM', () => {
  backend.close().finally(() => { redis.disconnect() }).catch(() => {})
})
