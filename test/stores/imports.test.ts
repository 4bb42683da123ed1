import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// src/stores is what every domain's store builds on (key names, scripts, expiry, locks): it imports no domain
// and no plugin, so no folder cycle can run through it.
const dir = new URL('../../src/stores/', import.meta.url)
const allowed = (target: string): boolean => target.startsWith('./') || target === '../errors.ts'
const STATIC_FROM = /^(?:import|export)(?:\s+type)?\s*(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:\s*,\s*\{[^}]*\})?)\s*from '([^']+)'/gm

describe('src/stores imports', () => {
  it.each(readdirSync(dir).filter((f) => f.endsWith('.ts')))('%s imports only its own folder, errors.ts and packages', (file) => {
    // an import's names may run over several lines (lines are held to 160 characters)
    const targets = [...readFileSync(new URL(file, dir), 'utf8').matchAll(STATIC_FROM)].map((m) => m[1] as string)
    expect(targets.filter((t) => t.startsWith('.') && !allowed(t))).toEqual([])
  })
})
