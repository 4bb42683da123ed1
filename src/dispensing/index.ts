import fp from 'fastify-plugin'
import { z } from 'zod'
import { AppError } from '../errors.ts'
import { cronSecretGuard } from '../notifications/cron-auth.ts'
import { scheduleDaily } from '../notifications/schedule.ts'
import { keys } from '../stores/keys.ts'
import { ledgerRoutes } from './ledger/routes.ts'
import { LedgerService } from './ledger/service.ts'
import { createLedgerStore } from './ledger/store/index.ts'
import { rulesRoutes } from './routes.ts'
import { seedDemoMembers } from './demo.ts'
import { expiryPass } from './expiry.ts'
import { DispensingService } from './service.ts'
import { createMemberStore } from './store/index.ts'

/** The in-process daily pass's hour (UTC), apart from the reminders' 09:00. */
const DISPENSING_HOUR_UTC = 3

declare module 'fastify' {
  interface FastifyInstance {
    dispensing: DispensingService
    ledger: LedgerService
    dispensingDaily: { run: () => Promise<{ ran: true, result: DailyReport } | { ran: false }> }
  }
}

interface DailyReport { clubs: number, removed: number, notified: number, lapsed: number }

const DAILY_LOCK_TTL_MS = 10 * 60 * 1000

// Dispensing under the club's rules: the rules, the members' standing and quota, the dispensing record and its
// daily retention (docs/dispensing.md).
export default fp(async (app) => {
  const members = createMemberStore(app.redis)
  const dispensing = new DispensingService({ tenants: app.tenants, members })
  const ledger = new LedgerService(createLedgerStore(app.redis), dispensing)
  const run = async () => await app.locks.tryLock(keys.dispensing.dailyLock(), DAILY_LOCK_TTL_MS, async (): Promise<DailyReport> => {
    const clubs = await app.tenants.list()
    const report: DailyReport = { clubs: clubs.length, removed: 0, notified: 0, lapsed: 0 }
    for (const tenant of clubs) {
      report.removed += await ledger.removeExpired(tenant)
      // app.notifier is read at run time: the notifications plugin is registered after this one
      const expiry = await expiryPass({ members, notifier: app.notifier }, tenant, dispensing.dayOf(tenant))
      report.notified += expiry.notified
      report.lapsed += expiry.lapsed
    }
    return report
  })
  app.decorate('dispensing', dispensing)
  app.decorate('ledger', ledger)
  app.decorate('dispensingDaily', { run })
  app.demoSeeders.push({ name: 'dispensing', run: async () => { await seedDemoMembers({ tenants: app.tenants, members, dispensing, ledger }) } })
  await app.register(rulesRoutes, { dispensing })
  await app.register(ledgerRoutes, { ledger })

  app.post('/api/dispensing/daily', {
    onRequest: cronSecretGuard(app.config.cronApiSecret),
    config: { rateLimit: false },
    schema: {
      tags: ['dispensing'],
      summary: 'Scheduled job: removes dispensing entries past each club\'s retention, tells members whose registration ends in 10 days, ' +
        'lapses expired ones (Bearer CRON_API_SECRET)',
      security: [{ bearer: [] }],
      response: { 200: z.object({ clubs: z.number(), removed: z.number(), notified: z.number(), lapsed: z.number() }) },
    },
  }, async () => {
    const outcome = await run()
    if (!outcome.ran) throw new AppError('CONFLICT', 'The dispensing job is already running on another instance; try again later')
    return outcome.result
  })

  if (app.config.remindersSchedule) {
    let schedule: { stop: () => void } | undefined
    app.addHook('onReady', async () => {
      // At 03:00 UTC, apart from the 09:00 reminders: the night's retention and standing pass before the clubs open.
      schedule = scheduleDaily(async () => {
        const outcome = await run()
        app.log.info(outcome.ran ? { dispensing: outcome.result } : { skipped: 'running elsewhere' }, 'scheduled dispensing job')
      }, (err) => app.log.error({ err }, 'scheduled dispensing job failed'), { hour: DISPENSING_HOUR_UTC })
    })
    app.addHook('onClose', async () => { schedule?.stop() })
  }
}, { name: 'dispensing', dependencies: ['auth', 'tenants', 'redis', 'locks'] })
