import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// src/stores is what every domain's store builds on (key names, scripts, expiry, locks): it imports no domain
// and no plugin, so no folder cycle can run through it.
const dir = new URL('../../src/stores/', import.meta.url)
const allowed = (target: string): boolean => target.startsWith('./') || target === '../errors.ts'

describe('src/stores imports', () => {
  it.each(readdirSync(dir).filter((f) => f.endsWith('.ts')))('%s imports only its own folder, errors.ts and packages', (file) => {
    const targets = [...readFileSync(new URL(file, dir), 'utf8').matchAll(/^(?:import|export)[^'\n]*from '([^']+)'/gm)].map((m) => m[1] as string)
    expect(targets.filter((t) => t.startsWith('.') && !allowed(t))).toEqual([])
  })
})
