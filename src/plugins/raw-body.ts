import fp from 'fastify-plugin'
import rawBody from 'fastify-raw-body'

// Routes that verify a signature over the unparsed bytes opt in with `config: { rawBody: true }`.
export default fp(async (app) => {
  await app.register(rawBody, { field: 'rawBody', global: false, encoding: false, runFirst: true })
}, { name: 'raw-body' })
