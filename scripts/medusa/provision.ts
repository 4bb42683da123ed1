import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { installApp } from './app.ts'
import { createDatabase, dropDatabase, type Database } from './postgres.ts'
import { seed, type AdminCredentials, type Fixtures, type Settings } from './seed.ts'
import { freePort } from '../lib/free-port.ts'
import { medusa, startServer, stopServer } from './server.ts'
import { runStep, say } from './steps.ts'

export type { Fixtures, Settings, TenantSettings } from './seed.ts'

export interface StartOptions {
  /** The repository whose .cache/ holds the app and the run's files; defaults to the one this script is in. */
  repoDir?: string
  /** Port of the Medusa server on 127.0.0.1; defaults to a free one. */
  port?: number
  /** Aborting it stops the current step and undoes what was already started. */
  signal?: AbortSignal
}

export interface MedusaRun {
  baseUrl: string
  settingsFile: string
  settings: Settings
  fixturesFile: string
  fixtures: Fixtures
  /** Kills the server, then drops the database; safe to call more than once. */
  stop: () => Promise<void>
}

const ADMIN_EMAIL = 'admin@medusa.test'

function medusaEnv (db: Database): NodeJS.ProcessEnv {
  const cors = 'http://localhost:3000,http://127.0.0.1:3000'
  return {
    ...process.env,
    MEDUSA_DISABLE_TELEMETRY: 'true',
    DATABASE_URL: db.url,
    JWT_SECRET: randomBytes(32).toString('hex'),
    COOKIE_SECRET: randomBytes(32).toString('hex'),
    STORE_CORS: cors,
    ADMIN_CORS: cors,
    AUTH_CORS: cors,
  }
}

function writeJson (file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 })
}

/** Runs the undo actions newest first; each failure is reported and the rest still run. */
function undoer (): { push: (undo: () => Promise<unknown>) => void, run: () => Promise<void> } {
  const undos: Array<() => Promise<unknown>> = []
  let done: Promise<void> | undefined
  const runAll = async (): Promise<void> => {
    for (const undo of undos.reverse()) {
      try {
        await undo()
      } catch (err) {
        say(err instanceof Error ? err.message : String(err))
      }
    }
  }
  return { push: (undo) => undos.push(undo), run: () => (done ??= runAll()) }
}

/**
 * Provisions a real Medusa v2 server for one test run: PostgreSQL and a fresh database, the Medusa app
 * (installed once into .cache/medusa-app), migrations, an admin user, the server itself, and the demo data of
 * both clubs. Writes the tenants settings and the fixtures to .cache/medusa-run/.
 */
export async function startMedusa (opts: StartOptions = {}): Promise<MedusaRun> {
  const repoDir = opts.repoDir ?? fileURLToPath(new URL('../..', import.meta.url))
  const appDir = join(repoDir, '.cache', 'medusa-app')
  const runDir = join(repoDir, '.cache', 'medusa-run')
  mkdirSync(runDir, { recursive: true })
  const { signal } = opts
  const undo = undoer()
  try {
    const db = await runStep('postgres', runDir, (step) => createDatabase(step), signal)
    undo.push(() => runStep('drop-database', runDir, (step) => dropDatabase(step, db)))
    await runStep('install', runDir, (step) => installApp(step, appDir), signal)
    const env = medusaEnv(db)
    await runStep('migrate', runDir, (step) => medusa(step, appDir, env, ['db:migrate']), signal)
    const admin: AdminCredentials = { email: ADMIN_EMAIL, password: randomBytes(12).toString('hex') }
    await runStep('admin-user', runDir, (step) => medusa(step, appDir, env, ['user', '-e', admin.email, '-p', admin.password], [admin.password]), signal)
    const port = opts.port ?? await freePort()
    const server = await runStep('boot', runDir, (step) => startServer(step, appDir, env, port), signal)
    undo.push(() => runStep('stop-server', runDir, () => stopServer(server)))
    const { settings, fixtures } = await runStep('seed', runDir, (step) => seed(server.baseUrl, admin, step.log), signal)
    const settingsFile = join(runDir, 'tenants.json')
    const fixturesFile = join(runDir, 'fixtures.json')
    writeJson(settingsFile, settings)
    writeJson(fixturesFile, fixtures)
    return { baseUrl: server.baseUrl, settingsFile, settings, fixturesFile, fixtures, stop: undo.run }
  } catch (err) {
    await undo.run()
    throw err
  }
}
