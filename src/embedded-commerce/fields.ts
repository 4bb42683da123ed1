// Medusa's `fields` query: comma-separated paths; a plain path selects (only the listed fields come back at
// that level, plus id), `+path` and `*relation` add to the defaults, `-path` removes. Our answers already carry
// every relation a client asks for, so `+` and `*` never need to add anything: selection is what matters.

interface Node {
  restrictive: boolean
  removed: Set<string>
  children: Map<string, Node>
}

const newNode = (): Node => ({ restrictive: false, removed: new Set(), children: new Map() })

export type FieldSelection = Node

/** Parses a `fields` value; undefined when it selects nothing (the default answer). Never throws. */
export function parseFields (raw: string | undefined): FieldSelection | undefined {
  if (!raw) return undefined
  const root = newNode()
  for (const token of raw.split(',')) {
    const trimmed = token.trim()
    const prefix = /^[+*-]/.test(trimmed) ? trimmed.charAt(0) : ''
    const path = trimmed.slice(prefix.length).split('.').map((s) => s.trim()).filter(Boolean)
    if (path.length === 0) continue
    let node = root
    path.forEach((segment, i) => {
      const last = i === path.length - 1
      if (prefix === '-' && last) {
        node.removed.add(segment)
        return
      }
      if (prefix === '') node.restrictive = true
      let child = node.children.get(segment)
      if (!child) node.children.set(segment, child = newNode())
      node = child
    })
  }
  return root
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Applies a selection to an answer object (or array of them). */
export function project (value: unknown, node: FieldSelection | undefined): unknown {
  if (!node) return value
  if (Array.isArray(value)) return value.map((v) => project(v, node))
  if (!isRecord(value)) return value
  const keep = node.restrictive
    ? Object.keys(value).filter((k) => k === 'id' || node.children.has(k))
    : Object.keys(value).filter((k) => !node.removed.has(k))
  return Object.fromEntries(keep.map((k) => [k, project(value[k], node.children.get(k))]))
}
