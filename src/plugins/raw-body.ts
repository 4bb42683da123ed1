import fp from 'fastify-plugin'
import rawBody from 'fastify-raw-body'

// Routes that verify a signature over the unparsed body opt in with `config: { rawBody: true }`. Kept as the
// UTF-8 text of the bytes (JSON is UTF-8), so the app's own JSON parser stays in charge of parsing.
export default fp(async (app) => {
  await app.register(rawBody, { field: 'rawBody', global: false, encoding: 'utf8', runFirst: true })
}, { name: 'raw-body' })
