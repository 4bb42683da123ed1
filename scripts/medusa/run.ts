// npm run test:medusa: provisions a real Medusa v2 server, runs the contract tests against it, always tears it down.
import { spawn, type ChildProcess } from 'node:child_process'
import { constants } from 'node:os'
import { fileURLToPath } from 'node:url'
import { startMedusa, type MedusaRun, type Settings } from './provision.ts'
import { say } from './steps.ts'

const repoDir = fileURLToPath(new URL('../..', import.meta.url))
const CONTRACT_DIR = 'test/contract'
// --serve: provision, print how to point the contract tests at the server, and keep it until Ctrl-C.
const SERVE = process.argv.includes('--serve')

function redact (secret: string): string {
  return secret.length > 9 ? `${secret.slice(0, 6)}***${secret.slice(-3)}` : '***'
}

function masked (settings: Settings): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).map(([tenantId, tenant]) => [
    tenantId,
    { ...tenant, publishableKey: redact(tenant.publishableKey), adminPassword: '***' },
  ]))
}

// A path filter rather than --dir: the project's config includes test/**/*.test.ts, which --dir would resolve
// inside test/contract (test/contract/test/**) and so find nothing.
const VITEST_ARGS = ['vitest', 'run', CONTRACT_DIR]

function runTests (medusa: MedusaRun, started: (child: ChildProcess) => void): Promise<number> {
  say(`npx ${VITEST_ARGS.join(' ')}`)
  const child = spawn('npx', VITEST_ARGS, {
    cwd: repoDir,
    stdio: 'inherit',
    env: { ...process.env, COMMERCE_TENANTS_FILE: medusa.settingsFile, MEDUSA_FIXTURES_FILE: medusa.fixturesFile },
  })
  started(child)
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)))
  })
}

async function main (): Promise<number> {
  const startup = new AbortController()
  let medusa: MedusaRun | undefined
  let tests: ChildProcess | undefined
  let signalled: NodeJS.Signals | undefined
  const onSignal = (signal: NodeJS.Signals): void => {
    say(`${signal}: stopping`)
    signalled = signal
    tests?.kill(signal)
    // While starting, aborting makes startMedusa undo its own work; once started, stop here and leave.
    startup.abort()
    if (medusa) medusa.stop().then(() => process.exit(128 + constants.signals[signal]))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const started = Date.now()
  try {
    medusa = await startMedusa({ signal: startup.signal })
  } catch (err) {
    if (signalled) return 128 + constants.signals[signalled]
    throw err
  }
  try {
    say(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${medusa.baseUrl}`)
    say(`settings (${medusa.settingsFile}):\n${JSON.stringify(masked(medusa.settings), null, 2)}`)
    say(`fixtures: ${medusa.fixturesFile}`)
    if (SERVE) {
      say(
        `serving until Ctrl-C; run the contract tests against it with:\n  COMMERCE_TENANTS_FILE=${medusa.settingsFile} ` +
          `MEDUSA_FIXTURES_FILE=${medusa.fixturesFile} npx ${VITEST_ARGS.join(' ')}`
      )
      // The timer keeps the process alive; the signal handler stops the server and exits.
      await new Promise(() => setInterval(() => {}, 3_600_000))
    }
    return await runTests(medusa, (child) => { tests = child })
  } finally {
    await medusa.stop()
    say(`whole run: ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
}

main().then(
  (code) => { process.exitCode = code },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err)
    process.exitCode = 1
  }
)
