import fp from 'fastify-plugin'
import { keys } from '../stores/keys.ts'
import { MemoryLiveHub, RedisLiveHub, type LiveHub } from './live.ts'
import { generateReminders, type ReminderReport } from './reminders.ts'
import { notificationRoutes } from './routes.ts'
import { scheduleDaily } from './schedule.ts'
import { NotificationService } from './service.ts'
import { createNotificationStore } from './store/index.ts'
import { notificationStreamRoutes } from './stream.ts'

declare module 'fastify' {
  interface FastifyInstance {
    notifications: NotificationService
    liveHub: LiveHub
    /** The reminder job behind its lock: `{ ran: false }` when another instance is running it. */
    reminders: { run: () => Promise<{ ran: true, result: ReminderReport } | { ran: false }> }
  }
}

// A run takes seconds; the expiry only frees the lock of an instance that died mid-run.
const REMINDERS_LOCK_TTL_MS = 10 * 60 * 1000

// The notifications domain: store, routes, reminders and live updates.
export default fp(async (app) => {
  const live: LiveHub = app.redis
    ? new RedisLiveHub(app.redis, app.config.redisKeyPrefix, (err) => app.log.error({ err }, 'live updates: redis error'))
    : new MemoryLiveHub()
  const service = new NotificationService({
    store: createNotificationStore(app.redis),
    live,
    onPushError: (err) => app.log.warn({ err }, 'live update not pushed'),
  })
  const run = async () => await app.locks.tryLock(keys.notifications.remindersLock(), REMINDERS_LOCK_TTL_MS, async () =>
    await generateReminders({ tenants: app.tenants, content: app.content, notifications: service, now: Date.now }))

  app.decorate('notifications', service)
  app.decorate('notifier', service)
  app.decorate('liveHub', live)
  app.decorate('reminders', { run })
  app.addHook('onClose', async () => { await live.close() })

  if (app.config.remindersSchedule) {
    let schedule: { stop: () => void } | undefined
    app.addHook('onReady', async () => {
      schedule = scheduleDaily(async () => {
        const outcome = await run()
        app.log.info(outcome.ran ? { reminders: outcome.result } : { skipped: 'running elsewhere' }, 'scheduled reminder job')
      }, (err) => app.log.error({ err }, 'scheduled reminder job failed'))
    })
    app.addHook('onClose', async () => { schedule?.stop() })
  }

  await app.register(notificationRoutes)
  await app.register(notificationStreamRoutes)
}, { name: 'notifications', dependencies: ['auth', 'content', 'tenants', 'locks'] })
