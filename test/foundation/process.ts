import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'

// The service as an operator runs it: a real process, its output collected, its HTTP port polled.

export interface RunningProcess {
  child: ChildProcessWithoutNullStreams
  output: () => string
  stdout: () => string
}

/** Runs `command args` in the repository with only PATH and HOME from this environment, plus `env`. */
export function startProcess (command: string, args: string[], env: Record<string, string>): RunningProcess {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env },
  })
  let out = ''
  let stdout = ''
  child.stdout.on('data', (d) => { out += String(d); stdout += String(d) })
  child.stderr.on('data', (d) => { out += String(d) })
  return { child, output: () => out, stdout: () => stdout }
}

export async function waitForHealth (url: string): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/health`)).ok) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('server did not come up')
}
