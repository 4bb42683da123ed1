import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'

// The functions with the most self time in a V8 CPU profile (`node --cpu-prof`): `tsx bench/profile.ts [file or
// directory]` prints them for the newest .cpuprofile found (default bench/.profiles).

interface ProfileNode { id: number, callFrame: { functionName: string, url: string, lineNumber: number }, hitCount?: number }
interface CpuProfile { nodes: ProfileNode[], samples: number[], timeDeltas: number[] }

const newest = (dir: string): string => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f))
  const last = files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]
  if (!last) throw new Error(`no .cpuprofile in ${dir}`)
  return last
}

export function topSelfTime (path: string, top = 20): Array<{ where: string, ms: number, share: number }> {
  const file = statSync(path).isDirectory() ? newest(path) : path
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<string, number>()
  let all = 0
  profile.samples.forEach((id, i) => {
    const node = byNode.get(id)
    const ms = (profile.timeDeltas[i] ?? 0) / 1000
    if (!node) return
    const { functionName, url, lineNumber } = node.callFrame
    const source = url.startsWith('file://') ? relative(process.cwd(), new URL(url).pathname) : url
    const where = `${functionName || '(anonymous)'} ${source ? `${source}:${lineNumber + 1}` : ''}`.trim()
    self.set(where, (self.get(where) ?? 0) + ms)
    all += ms
  })
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, top).map(([where, ms]) => ({ where, ms, share: ms / all }))
}

export function printTopSelfTime (path: string, top = 20): void {
  const rows = topSelfTime(path, top)
  process.stdout.write(`\nCPU profile of the service (${path}), top self time:\n${rows.map((r) => `  ${(100 * r.share).toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.where}`).join('\n')}\n`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) printTopSelfTime(process.argv[2] ?? join('bench', '.profiles'))
