import { Writable } from 'node:stream'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { loggerOptions } from '../../src/logger.ts'

describe('log format', () => {
  it('is readable (pino-pretty) only on a terminal outside production', () => {
    expect(loggerOptions('info', 'development', true).transport).toMatchObject({ target: 'pino-pretty' })
    expect(loggerOptions('info', 'test', true).transport).toMatchObject({ target: 'pino-pretty' })
    expect(loggerOptions('info', 'production', true).transport).toBeUndefined()
    expect(loggerOptions('info', 'development', false).transport).toBeUndefined()
  })
})

describe('logged errors', () => {
  it('show class, message, code, status, stack and causes, never an error\'s other properties', () => {
    const lines: string[] = []
    const sink = new Writable({ write (chunk, _enc, done) { lines.push(String(chunk)); done() } })
    const log = pino(loggerOptions('info', 'production', false), sink)
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', headers: { authorization: 'Bearer cause-token' } })
    const err = Object.assign(new Error('upstream failed', { cause }), { statusCode: 502, response: { body: 'session=upstream-secret' } })
    log.error({ err }, 'failed')
    const line = JSON.parse(lines.join(''))
    expect(line.err).toMatchObject({
      type: 'Error', message: 'upstream failed', statusCode: 502, cause: { message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' }
    })
    expect(line.err.stack).toContain('upstream failed')
    for (const leaked of ['cause-token', 'upstream-secret']) expect(lines.join('')).not.toContain(leaked)
  })
})
