import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as scripts from '../../src/chat/store/scripts.ts'

// The chat store's Lua (src/chat/store/scripts/): one file per script, named with its key count, opening with a
// header of its KEYS, ARGV and reply, each declared with the decode of its reply; the shared pieces in includes/
// say what they define.
const dir = new URL('../../src/chat/store/scripts/', import.meta.url)
const lua = readdirSync(dir).filter((f) => f.endsWith('.lua'))
const includes = readdirSync(new URL('includes/', dir)).filter((f) => f.endsWith('.lua'))
const declared = Object.values(scripts).filter((v) => typeof v === 'function' && 'spec' in v).map((s) => s.spec)
const headerOf = (text: string): string => /^--\[\[\n[\s\S]*?\n\]\]\n/.exec(text)?.[0] ?? ''

describe('the chat store\'s scripts', () => {
  it('are all declared, each from its own file', () => {
    expect(lua.length).toBeGreaterThan(10)
    expect(declared.length).toBe(lua.length)
  })

  it.each(lua)('%s opens with its KEYS, ARGV and reply, and is declared with its key count and a decode', (file) => {
    const text = readFileSync(new URL(file, dir), 'utf8')
    const header = headerOf(text)
    expect(header).toMatch(/\n {2}Input[^\n]*:\n/)
    expect(header).toMatch(/\n {4}KEYS\[1\] /)
    expect(header).toMatch(/\n {4}ARGV\[1[\].]/)
    expect(header).toMatch(/\n {2}Output:\n {4}\S/)
    const count = (/-(\d+|list)\.lua$/.exec(file) as RegExpExecArray)[1]
    const keys = new Set([...header.matchAll(/\n {4}KEYS\[(\d+)\] /g)].map((m) => m[1]))
    if (count !== 'list') expect(keys.size).toBe(Number(count))
    const spec = declared.find((s) => s.lua.startsWith(header))
    expect(spec?.keys).toBe(count === 'list' ? 'list' : Number(count))
    expect(typeof spec?.decode).toBe('function')
  })

  it.each(includes)('includes/%s says what it defines', (file) => {
    expect(headerOf(readFileSync(new URL(`includes/${file}`, dir), 'utf8'))).not.toBe('')
  })
})
