import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { run, type Step } from './steps.ts'

export const MEDUSA_VERSION = '2.21.2'
const PACKAGES = ['@medusajs/cli', '@medusajs/framework', '@medusajs/medusa']
const MARKER = '.medusa-installed'

// Per-run values (database, secrets) come from the environment, so one installed app serves every run.
const CONFIG = `const { loadEnv, defineConfig } = require('@medusajs/framework/utils')

loadEnv(process.env.NODE_ENV || 'development', process.cwd())

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: {
      storeCors: process.env.STORE_CORS,
      adminCors: process.env.ADMIN_CORS,
      authCors: process.env.AUTH_CORS,
      jwtSecret: process.env.JWT_SECRET,
      cookieSecret: process.env.COOKIE_SECRET,
    },
  },
  admin: { disable: true },
})
`

function packageJson (): string {
  const dependencies = Object.fromEntries(PACKAGES.map((name) => [name, MEDUSA_VERSION]))
  return `${JSON.stringify({ name: 'club-service-medusa-app', private: true, dependencies }, null, 2)}\n`
}

export function isInstalled (appDir: string): boolean {
  const marker = join(appDir, MARKER)
  return existsSync(marker) && readFileSync(marker, 'utf8').trim() === MEDUSA_VERSION
}

/** Writes the app's package.json and medusa-config.js and runs `npm install` unless this version is already there. */
export async function installApp (step: Step, appDir: string): Promise<void> {
  mkdirSync(appDir, { recursive: true })
  writeFileSync(join(appDir, 'medusa-config.js'), CONFIG)
  if (isInstalled(appDir)) {
    step.log(`@medusajs/* ${MEDUSA_VERSION} already installed in ${appDir}`)
    return
  }
  rmSync(join(appDir, MARKER), { force: true })
  writeFileSync(join(appDir, 'package.json'), packageJson())
  // npm ci is avoided on purpose: a lockfile made on one platform lacks other platforms' optional packages.
  await run(step, 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=warn'], { cwd: appDir })
  writeFileSync(join(appDir, MARKER), `${MEDUSA_VERSION}\n`)
}
