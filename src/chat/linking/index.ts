import fp from 'fastify-plugin'

// Link codes, linked accounts and the in-chat login form endpoint.
export default fp(async () => {}, { name: 'chat-linking', dependencies: ['auth', 'raw-body'] })
