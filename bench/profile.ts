import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'

// The functions with the most self time in a V8 CPU profile (`node --cpu-prof`): `tsx bench/profile.ts [file or
// directory]` prints them; for a directory (default bench/.profiles), of the busiest .cpuprofile in it (tsx's
// module loader thread writes a profile of its own, nearly all idle, next to the main thread's).

interface ProfileNode { id: number, callFrame: { functionName: string, url: string, lineNumber: number, columnNumber: number }, children?: number[] }
/** `startTime` and `timeDeltas` in µs, on the monotonic clock process.hrtime reads. */
export interface CpuProfile { nodes: ProfileNode[], samples: number[], timeDeltas: number[], startTime: number }

export const readProfile = (file: string): CpuProfile => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile

/** Milliseconds of samples spent anywhere but (idle). */
function busy (profile: CpuProfile): number {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id))
  return profile.samples.reduce((sum, id, i) => idle.has(id) ? sum : sum + (profile.timeDeltas[i] ?? 0) / 1000, 0)
}

export function busiestProfile (dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f))
  const best = files.map((f) => ({ f, ms: busy(readProfile(f)) })).sort((a, b) => b.ms - a.ms)[0]
  if (!best) throw new Error(`no .cpuprofile in ${dir}`)
  return best.f
}

const PACKAGES = '/node_modules/'

/**
 * A frame by its function and where it is: a package's file by its path in the package, ours relative to here; the
 * column too on a first line (tsx compiles a source file to one line, so only the column tells its functions apart).
 */
export const frameName = (node: ProfileNode): string => {
  const { functionName, url, lineNumber, columnNumber } = node.callFrame
  const path = url.startsWith('file://') ? new URL(url).pathname : url
  const source = path.includes(PACKAGES)
    ? path.slice(path.lastIndexOf(PACKAGES) + PACKAGES.length)
    : path.startsWith('/') ? relative(process.cwd(), path) : path
  const at = lineNumber === 0 ? `1:${columnNumber + 1}` : String(lineNumber + 1)
  return `${functionName || '(anonymous)'} ${source ? `${source}:${at}` : ''}`.trim()
}

/** For each node of the profile, its first caller outside Node's internals (whose write, whose parse), by name. */
export function callers (profile: CpuProfile): Map<number, string> {
  const parent = new Map<number, ProfileNode>()
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n)
  const named = new Map<number, string>()
  for (const n of profile.nodes) {
    let up = parent.get(n.id)
    while (up && (up.callFrame.url.startsWith('node:') || up.callFrame.url === '') && parent.has(up.id)) up = parent.get(up.id)
    named.set(n.id, up ? frameName(up) : '')
  }
  return named
}

/** Top functions by self time, each with the caller (outside Node's internals) that most of that time came through. */
export function topSelfTime (path: string, top = 20): Array<{ where: string, caller: string, ms: number, share: number }> {
  const profile = readProfile(statSync(path).isDirectory() ? busiestProfile(path) : path)
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]))
  const callerOf = callers(profile)
  const self = new Map<string, { ms: number, callers: Map<string, number> }>()
  let all = 0
  profile.samples.forEach((id, i) => {
    const node = byNode.get(id)
    if (!node) return
    const ms = (profile.timeDeltas[i] ?? 0) / 1000
    const where = frameName(node)
    const entry = self.get(where) ?? { ms: 0, callers: new Map<string, number>() }
    const caller = callerOf.get(id) ?? ''
    entry.ms += ms
    entry.callers.set(caller, (entry.callers.get(caller) ?? 0) + ms)
    self.set(where, entry)
    all += ms
  })
  return [...self].sort((a, b) => b[1].ms - a[1].ms).slice(0, top).map(([where, e]) => ({
    where,
    caller: [...e.callers].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '',
    ms: e.ms,
    share: e.ms / all,
  }))
}

export function printTopSelfTime (path: string, top = 20): void {
  const rows = topSelfTime(path, top)
  process.stdout.write(
    `\nCPU profile of the service (${path}), top self time:\n${rows.map((r) =>
      `  ${(100 * r.share).toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.where}${r.caller ? `  <- ${r.caller}` : ''}`).join('\n')}\n`
  )
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) printTopSelfTime(process.argv[2] ?? join('bench', '.profiles'))
