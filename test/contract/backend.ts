import { readFileSync } from 'node:fs'
import type { Fixtures } from '../../scripts/medusa/seed.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

// Which commerce backend the contract suite runs against: the real Medusa that `npm run test:medusa` provisions
// (it sets both variables), else the embedded backend, as in production without COMMERCE_URL.

export interface ContractBackend {
  name: 'embedded' | 'medusa'
  /** Per test: a real Medusa answers in 20 to 400 ms a call (more on a busy machine), and a scenario makes dozens. */
  timeoutMs: number
  build: () => Promise<TestApp>
}

export function contractBackend (env: NodeJS.ProcessEnv = process.env): ContractBackend {
  const tenantsFile = env.COMMERCE_TENANTS_FILE
  const fixturesFile = env.MEDUSA_FIXTURES_FILE
  if (!tenantsFile && !fixturesFile) return { name: 'embedded', timeoutMs: 20_000, build: () => buildTestApp() }
  if (!tenantsFile || !fixturesFile) throw new Error('the contract suite needs both COMMERCE_TENANTS_FILE and MEDUSA_FIXTURES_FILE, or neither')
  // The only fixture read: where the server is, so that the embedded backend is not started beside it.
  const { baseUrl } = JSON.parse(readFileSync(fixturesFile, 'utf8')) as Pick<Fixtures, 'baseUrl'>
  return { name: 'medusa', timeoutMs: 120_000, build: () => buildTestApp({ env: { COMMERCE_TENANTS_FILE: tenantsFile, COMMERCE_URL: baseUrl } }) }
}
