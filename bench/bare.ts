import Fastify from 'fastify'

// The yardstick: a bare Fastify route in a process of its own, as the service runs in one (bench/lib.ts).
const app = Fastify()
app.post('/bare', async () => ({ success: true }))
app.get('/health', async () => 'OK')
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
process.on('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
