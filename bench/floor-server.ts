import Fastify from 'fastify'
import { Pool } from 'undici'
import { createRedis } from '../src/plugins/redis.ts'
import { defineScript } from '../src/stores/define-script.ts'

// The floor of a turn: a minimal handler doing what a turn of the service does on the wire and nothing else. It
// takes the same signed webhook POST, runs one Redis script before answering it (the service's accept), then
// makes the turn's commerce calls one after the other (GET /health of the bench's commerce backend), runs the
// turn's other Redis scripts one after the other and posts each reply to the provider stand-in. How many of each
// comes in the header x-floor: `<scripts>,<replies>,<calls>,<rate>` per turn, as counted on the service in the same
// run (bench/confirm.ts); with a rate, the replies keep to it as the service's sends keep to the provider's pace
// (one schedule for the process, each send in its own slot, 1000 / rate ms after the one before). GET /floor/done
// answers how many turns finished. Env: PORT, HOST, REDIS_URL, PROVIDER_URL, COMMERCE_URL.

const env = (name: string): string => {
  const value = process.env[name]
  if (!value) throw new Error(`bench/floor-server.ts: ${name} is not set`)
  return value
}

const floorStep = defineScript<[n: string], number>({ name: 'floorStep', keys: 1, lua: "redis.call('SET', KEYS[1], ARGV[1]) return 1" })
const redis = createRedis(env('REDIS_URL'), 'floor:')
await redis.connect()
const step = async (phone: string, n: number): Promise<void> => { await floorStep(redis, [`p:${phone}`], String(n)) }
const provider = new Pool(env('PROVIDER_URL'), { connections: 32 })
const commerce = new Pool(env('COMMERCE_URL'), { connections: 32 })
let done = 0
let nextSlot = 0
/** Waits for the next slot of a schedule of `rate` sends a second (none when 0). */
async function paced (rate: number): Promise<void> {
  if (rate <= 0) return
  const now = performance.now()
  nextSlot = Math.max(nextSlot + 1000 / rate, now)
  if (nextSlot > now) await new Promise((resolve) => setTimeout(resolve, nextSlot - now))
}

async function turn (phone: string, scripts: number, replies: number, calls: number, rate: number): Promise<void> {
  for (let i = 0; i < calls; i++) await (await commerce.request({ method: 'GET', path: '/health' })).body.dump()
  for (let i = 1; i < scripts; i++) await step(phone, i)
  for (let i = 0; i < replies; i++) {
    await paced(rate)
    const res = await provider.request({
      method: 'POST',
      path: '/v1/messages',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: phone, type: 'text', text: { body: 'floor' } })
    })
    await res.body.dump()
  }
  done++
}

const app = Fastify()
app.post('/api/chat/webhook', async (request) => {
  const [scripts = 1, replies = 0, calls = 0, rate = 0] = String(request.headers['x-floor'] ?? '').split(',').map(Number)
  const phone = String((request.body as { message?: { from?: string } }).message?.from)
  await step(phone, 0)
  turn(phone, scripts, replies, calls, rate).catch((err: Error) => { app.log.error(err) })
  return { success: true }
})
app.get('/floor/done', async () => ({ done }))
app.get('/health', async () => 'OK')
await app.listen({ port: Number(env('PORT')), host: env('HOST') })
process.once('SIGTERM', () => {
  app.close().finally(() => {
    redis.disconnect()
    Promise.all([provider.close(), commerce.close()]).finally(() => process.exit(0)).catch(() => {})
  }).catch(() => {})
})
