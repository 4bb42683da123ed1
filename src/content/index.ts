import fp from 'fastify-plugin'
import { seedDemoContent } from './demo.ts'
import { contentRoutes } from './routes.ts'
import { ContentService } from './service.ts'
import { createContentStore, type ContentStore } from './store.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The club's appointments and tasks (read by the reminder job). */
    content: ContentStore
  }
}

// The club's content: appointments and tasks, their admin routes and demo data.
export default fp(async (app) => {
  app.decorate('content', createContentStore(app.redis))
  app.demoSeeders.push({ name: 'content', run: async () => { await seedDemoContent(app.content) } })
  await app.register(contentRoutes, { content: new ContentService(app.content) })
}, { name: 'content', dependencies: ['auth'] })
