// Checks answer data against a Flow JSON screen's `data` declaration: same keys, same JSON types.
type Declared = Record<string, { type: string, items?: { properties?: Record<string, { type: string }> } }>

function typeOf (value: unknown): string {
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** Problems found; empty when the data fits. */
export function matchesScreen (declared: Record<string, unknown>, data: Record<string, unknown>): string[] {
  const decl = declared as Declared
  const problems: string[] = []
  const want = Object.keys(decl).sort()
  const got = Object.keys(data).sort()
  if (want.join() !== got.join()) problems.push(`keys ${got.join()} != ${want.join()}`)
  for (const [key, spec] of Object.entries(decl)) {
    const value = data[key]
    if (typeOf(value) !== spec.type) problems.push(`${key}: ${typeOf(value)} != ${spec.type}`)
    const properties = spec.items?.properties
    if (properties && Array.isArray(value)) {
      for (const item of value as Array<Record<string, unknown>>) {
        for (const [p, ps] of Object.entries(properties)) if (typeOf(item[p]) !== ps.type) problems.push(`${key}[].${p}`)
      }
    }
  }
  return problems
}
