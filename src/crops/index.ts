import fp from 'fastify-plugin'

// The crops domain: routes, service and store are registered here.
export default fp(async () => {}, { name: 'crops', dependencies: ['auth'] })
