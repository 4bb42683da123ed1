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
import { DispensingService } from './service.ts'
import { createMemberStore } from './store/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    dispensing: DispensingService
    ledger: LedgerService
    dispensingDaily: { run: () => Promise<{ ran: true, result: DailyReport } | { ran: false }> }
  }
}

export interface DailyReport { clubs: number, removed: number }

const DAILY_LOCK_TTL_MS = 10 * 60 * 1000

// Dispensing under the club's rules: the rules, the members' standing and quota, the dispensing record and its
// daily retention (docs/dispensing.md).
export default fp(async (app) => {
  const dispensing = new DispensingService({ tenants: app.tenants, members: createMemberStore(app.redis) })
  const ledger = new LedgerService(createLedgerStore(app.redis), dispensing)
  const run = async () => await app.locks.tryLock(keys.dispensing.dailyLock(), DAILY_LOCK_TTL_MS, async (): Promise<DailyReport> => {
    const clubs = await app.tenants.list()
    let removed = 0
    for (const tenant of clubs) removed += await ledger.removeExpired(tenant)
    return { clubs: clubs.length, removed }
  })
  app.decorate('dispensing', dispensing)
  app.decorate('ledger', ledger)
  app.decorate('dispensingDaily', { run })
  await app.register(rulesRoutes, { dispensing })
  await app.register(ledgerRoutes, { ledger })

  app.post('/api/dispensing/daily', {
    onRequest: cronSecretGuard(app.config.cronApiSecret),
    config: { rateLimit: false },
    schema: {
      tags: ['dispensing'],
      summary: 'Scheduled job: removes dispensing entries past each club\'s retention (Bearer CRON_API_SECRET)',
      security: [{ bearer: [] }],
      response: { 200: z.object({ clubs: z.number(), removed: z.number() }) },
    },
  }, async () => {
    const outcome = await run()
    if (!outcome.ran) throw new AppError('CONFLICT', 'The dispensing job is already running on another instance; try again later')
    return outcome.result
  })

  if (app.config.remindersSchedule) {
    let schedule: { stop: () => void } | undefined
    app.addHook('onReady', async () => {
      schedule = scheduleDaily(async () => {
        const outcome = await run()
        app.log.info(outcome.ran ? { dispensing: outcome.result } : { skipped: 'running elsewhere' }, 'scheduled dispensing job')
      }, (err) => app.log.error({ err }, 'scheduled dispensing job failed'))
    })
    app.addHook('onClose', async () => { schedule?.stop() })
  }
}, { name: 'dispensing', dependencies: ['auth', 'tenants', 'redis', 'locks'] })
