import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'

// The shape of the house, held by a test: no import cycle between the folders of src/ (each top-level file of
// src/ counts as its own node), and the pure machines/ and flows/ import nothing from src/.

const root = resolve(import.meta.dirname, '../..')

function tsFiles (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return tsFiles(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

/** The relative imports of a file, resolved to absolute paths. */
function importsOf (file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => resolve(dirname(file), m[1] as string))
}

/** `src/<folder>` for a file in a folder of src/, `src/<file>` for a top-level file. */
function nodeOf (file: string): string | undefined {
  const rel = relative(join(root, 'src'), file)
  if (rel.startsWith('..')) return undefined
  return rel.split(sep)[0]
}

/** The strongly connected groups of more than one node (Tarjan). */
function cycles (graph: Map<string, Set<string>>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const found: string[][] = []
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number))
      } else if (stack.includes(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number))
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = []
      let w: string | undefined
      do {
        w = stack.pop()
        if (w !== undefined) group.push(w)
      } while (w !== v && w !== undefined)
      if (group.length > 1) found.push(group.sort())
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return found
}

describe('the import graph', () => {
  it('has no cycle between the folders of src/', () => {
    const graph = new Map<string, Set<string>>()
    const edges: string[] = []
    for (const file of tsFiles(join(root, 'src'))) {
      const from = nodeOf(file) as string
      if (!graph.has(from)) graph.set(from, new Set())
      for (const target of importsOf(file)) {
        const to = nodeOf(target)
        if (to === undefined || to === from) continue
        graph.get(from)?.add(to)
        edges.push(`${relative(root, file)} -> ${relative(root, target)}`)
      }
    }
    const found = cycles(graph)
    const explain = found.map((group) =>
      [
        group.join(' <-> '),
        ...edges.filter((e) => group.some((a) => e.startsWith(`src/${a}`)) && group.some((b) => e.includes(`-> src/${b}`) && !e.startsWith(`src/${b}`)))
      ].join('\n  '))
    expect(explain).toEqual([])
  })

  it.each(['machines', 'flows'])('%s/ imports nothing from src/', (folder) => {
    const reaching = tsFiles(join(root, folder)).flatMap((file) =>
      importsOf(file).filter((t) => nodeOf(t) !== undefined).map((t) => `${relative(root, file)} -> ${relative(root, t)}`))
    expect(reaching).toEqual([])
  })

  // docs/conventions.md, Stores: a store folder's implementations are chosen by its index.ts; the rest of the
  // service imports that, and memory.ts and redis.ts never import each other
  it('imports a store folder\'s memory.ts or redis.ts only from beside them, and never one from the other', () => {
    const implementation = (file: string): boolean => ['memory.ts', 'redis.ts'].includes(basename(file)) && existsSync(join(dirname(file), 'port.ts'))
    const reaching = tsFiles(join(root, 'src')).flatMap((file) => importsOf(file)
      .filter((t) => implementation(t) && (dirname(t) !== dirname(file) || implementation(file)))
      .map((t) => `${relative(root, file)} -> ${relative(root, t)}`))
    expect(reaching).toEqual([])
  })
})
