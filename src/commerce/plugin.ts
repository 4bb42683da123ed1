import fp from 'fastify-plugin'

// Starts the embedded commerce backend when COMMERCE_URL is unset, and exposes the commerce client.
export default fp(async () => {}, { name: 'commerce', dependencies: ['tenants'] })
