import fp from 'fastify-plugin'

// The notifications domain: routes, service and store are registered here.
export default fp(async () => {}, { name: 'notifications', dependencies: ['auth'] })
