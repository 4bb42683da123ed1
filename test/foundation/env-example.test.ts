import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ENV_VARIABLES, loadConfig } from '../../src/config.ts'

// .env.example is what an operator copies: it must name every variable, and the values it gives must be the defaults.
const example = Object.fromEntries(readFileSync(new URL('../../.env.example', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => /^[A-Z_]+=/.test(line))
  .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))

describe('.env.example', () => {
  it('lists every variable the service reads', () => {
    expect(Object.keys(example).sort()).toEqual([...ENV_VARIABLES].sort())
  })

  it('gives the defaults', () => {
    const secrets = { JWT_SECRET: 'x'.repeat(32), CRON_API_SECRET: 'y'.repeat(32), CHAT_WEBHOOK_SECRET: 'z'.repeat(32) }
    expect(loadConfig({ ...example, ...secrets })).toEqual(loadConfig(secrets))
  })
})
