import { readFileSync } from 'node:fs'
import { join } from 'node:path'

// Shape comparison against a real Medusa 2.21's answers (copied from shared/reference/medusa-v2/samples).

export function sample (name: string): unknown {
  return JSON.parse(readFileSync(join(import.meta.dirname, 'samples', `${name}.json`), 'utf8'))
}

function kind (v: unknown): string {
  if (v === null) return 'null'
  return Array.isArray(v) ? 'array' : typeof v
}

/**
 * Every key the sample has, the answer has too, recursively, with the same JSON type where both are non-null.
 * Skipped: Medusa's `raw_*` duplicates and the `ignore` paths (dotted, `[]` for array elements). Array elements
 * of the answer are each compared with the sample's first element. Returns the differences found.
 */
export function shapeDiff (actual: unknown, expected: unknown, ignore: readonly string[] = [], path = ''): string[] {
  if (ignore.includes(path)) return []
  if (expected === null || actual === null) return []
  if (kind(expected) !== kind(actual)) return [`${path || '(root)'}: expected ${kind(expected)}, got ${kind(actual)}`]
  if (Array.isArray(expected)) {
    const [first] = expected
    if (first === undefined) return []
    return (actual as unknown[]).flatMap((a) => shapeDiff(a, first, ignore, `${path}[]`))
  }
  if (kind(expected) !== 'object') return []
  const a = actual as Record<string, unknown>
  return Object.entries(expected as Record<string, unknown>).flatMap(([key, value]) => {
    const at = path ? `${path}.${key}` : key
    if (key.startsWith('raw_') || ignore.includes(at)) return []
    if (!(key in a)) return [`${at}: missing`]
    return shapeDiff(a[key], value, ignore, at)
  })
}
