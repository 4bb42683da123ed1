import { spawn } from 'node:child_process'
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const TAIL_LINES = 40

export type Log = (line: string) => void

export interface Step {
  name: string
  logFile: string
  log: Log
  signal?: AbortSignal
}

export interface RunOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** Arguments to show as *** in the log, such as a password. */
  secrets?: string[]
}

export function say (line: string): void {
  console.log(`[medusa] ${line}`)
}

function seconds (since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`
}

export function tail (file: string, lines = TAIL_LINES): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no log)'
  }
}

/** Runs one named step with its own log file; a failure names the step and carries the log's tail. */
export async function runStep<T> (name: string, logDir: string, fn: (step: Step) => Promise<T>, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted()
  const logFile = join(logDir, `${name}.log`)
  writeFileSync(logFile, '')
  const log: Log = (line) => appendFileSync(logFile, line.endsWith('\n') ? line : `${line}\n`)
  const started = Date.now()
  say(`${name}: start`)
  try {
    const result = await fn({ name, logFile, log, signal })
    say(`${name}: done in ${seconds(started)}`)
    return result
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err)
    throw new Error(`step "${name}" failed after ${seconds(started)}: ${reason}\n--- last ${TAIL_LINES} lines of ${logFile} ---\n${tail(logFile)}`, {
      cause: err
    })
  }
}

/** Runs a command to completion, writing its output to the step's log; resolves with its stdout. */
export function run (step: Step, cmd: string, args: string[], opts: RunOptions = {}): Promise<string> {
  step.log(`$ ${cmd} ${args.map((arg) => opts.secrets?.includes(arg) ? '***' : arg).join(' ')}`)
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], signal: step.signal })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      step.log(chunk.toString())
    })
    child.stderr.on('data', (chunk: Buffer) => step.log(chunk.toString()))
    child.once('error', reject)
    child.once('close', (code, sig) => {
      if (code === 0) resolve(stdout)
      else reject(new Error(`${cmd} ${args[0] ?? ''} exited with ${sig ?? `code ${code}`}`))
    })
  })
}
