import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { run, type Step } from './steps.ts'

const HEALTH_TIMEOUT_MS = 120_000
const KILL_GRACE_MS = 5_000

export interface ServerProcess {
  pid: number
  baseUrl: string
  exited: Promise<void>
}

function medusaBin (appDir: string): string {
  return join(appDir, 'node_modules', '.bin', 'medusa')
}

export async function medusa (step: Step, appDir: string, env: NodeJS.ProcessEnv, args: string[], secrets?: string[]): Promise<void> {
  await run(step, medusaBin(appDir), args, { cwd: appDir, env, secrets })
}

async function isHealthy (baseUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) })
    return res.ok && (await res.text()).trim() === 'OK'
  } catch {
    return false
  }
}

/** Starts `medusa start` as the leader of its own process group, so that stopping it also stops anything it forked. */
export async function startServer (step: Step, appDir: string, env: NodeJS.ProcessEnv, port: number): Promise<ServerProcess> {
  const args = ['start', '-H', '127.0.0.1', '-p', String(port)]
  step.log(`$ ${medusaBin(appDir)} ${args.join(' ')}`)
  const out = openSync(step.logFile, 'a')
  const child = spawn(medusaBin(appDir), args, { cwd: appDir, env, stdio: ['ignore', out, out], detached: true })
  closeSync(out)
  const { pid } = child
  if (pid === undefined) throw new Error(`medusa start did not spawn (is ${medusaBin(appDir)} there?)`)
  child.once('error', (err) => step.log(`medusa start: ${err.message}`))
  let running = true
  const exited = new Promise<void>((resolve) => child.once('exit', () => { running = false; resolve() }))
  const server = { pid, baseUrl: `http://127.0.0.1:${port}`, exited }
  try {
    await waitForHealth(server, () => running, step.signal)
  } catch (err) {
    await stopServer(server)
    throw err
  }
  return server
}

async function waitForHealth (server: ServerProcess, running: () => boolean, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS
  while (!(await isHealthy(server.baseUrl))) {
    signal?.throwIfAborted()
    if (!running()) throw new Error('medusa start exited before GET /health answered OK')
    if (Date.now() > deadline) throw new Error(`GET ${server.baseUrl}/health did not answer OK within ${HEALTH_TIMEOUT_MS / 1000} s`)
    await sleep(500)
  }
}

function signalGroup (pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // already gone
  }
}

/** SIGTERM to the server's process group, SIGKILL if it is still there after a grace period. */
export async function stopServer (server: ServerProcess): Promise<void> {
  signalGroup(server.pid, 'SIGTERM')
  const timeout = sleep(KILL_GRACE_MS).then(() => 'timeout' as const)
  if (await Promise.race([server.exited, timeout]) === 'timeout') {
    signalGroup(server.pid, 'SIGKILL')
    await server.exited
  }
}
