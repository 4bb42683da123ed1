import fp from 'fastify-plugin'

// The chat domain: routes, service and store are registered here.
export default fp(async () => {}, { name: 'chat', dependencies: ['auth', 'chat-linking'] })
