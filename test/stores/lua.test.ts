import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { loadLua } from '../../src/stores/lua.ts'

// The one loader of Lua files (src/stores/lua.ts): includes expanded in place, each once, a cycle refused.
describe('loadLua', () => {
  const root = mkdtempSync(join(tmpdir(), 'lua-'))
  mkdirSync(join(root, 'includes'))
  const dir = pathToFileURL(`${root}/`)
  const file = (path: string, text: string): void => { writeFileSync(join(root, path), text) }
  afterAll(() => { rmSync(root, { recursive: true }) })

  it('expands an include where it is named, its own includes first, each piece once', () => {
    file('includes/now.lua', 'local now = 1\n')
    file('includes/wake.lua', '--- @include "now"\nlocal function wake () return now end\n')
    file('script-1.lua', '--- @include "now"\n--- @include "wake"\nreturn wake()\n')
    expect(loadLua(dir, 'script-1')).toBe('local now = 1\nlocal function wake () return now end\nreturn wake()\n')
  })

  it('refuses an include that comes back to itself, naming the chain', () => {
    file('includes/a.lua', '--- @include "b"\n')
    file('includes/b.lua', '--- @include "a"\n')
    file('looped-1.lua', '--- @include "a"\nreturn 1\n')
    expect(() => loadLua(dir, 'looped-1')).toThrow('Lua include cycle in looped-1.lua: looped-1 -> a -> b -> a')
  })

  it('refuses a script that includes itself', () => {
    file('includes/self.lua', '--- @include "self"\n')
    file('selfish-1.lua', '--- @include "self"\n')
    expect(() => loadLua(dir, 'selfish-1')).toThrow('self -> self')
  })

  it('fails on an include that does not exist', () => {
    file('missing-1.lua', '--- @include "nowhere"\n')
    expect(() => loadLua(dir, 'missing-1')).toThrow(/nowhere\.lua/)
  })
})
