import fp from 'fastify-plugin'
import { buildCommerceBackend } from './backend.ts'

// Starts the embedded commerce backend when COMMERCE_URL is unset. It listens while this plugin registers, so
// that `app.commerceUrl` is a working URL for every plugin registered after this one.
export default fp(async (app) => {
  const configured = app.config.commerce.url
  if (configured) {
    app.decorate('commerceUrl', configured.replace(/\/+$/, ''))
    return
  }
  const backend = await buildCommerceBackend({
    redis: app.redis,
    jwtSecret: app.config.jwtSecret,
    logger: app.log.child({ component: 'commerce' }),
    seed: app.config.seed === 'demo',
    bodyLimit: app.config.bodyLimit,
  })
  await backend.listen({ host: '127.0.0.1', port: app.config.commerce.embeddedPort })
  const address = backend.server.address()
  const port = typeof address === 'object' && address ? address.port : app.config.commerce.embeddedPort
  app.decorate('commerceUrl', `http://127.0.0.1:${port}`)
  app.log.info({ url: `http://127.0.0.1:${port}` }, 'embedded commerce backend listening')
  app.addHook('onClose', async () => { await backend.close() })
}, { name: 'embedded-commerce', dependencies: ['redis', 'tenants'] })
