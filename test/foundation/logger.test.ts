import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import fc from 'fast-check'
import pino from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import { BatchedLog, loggerOptions, serviceLogger } from '../../src/logger.ts'

describe('log format', () => {
  it('is readable (pino-pretty) only on a terminal outside production', () => {
    expect(loggerOptions('info', 'development', true).transport).toMatchObject({ target: 'pino-pretty' })
    expect(loggerOptions('info', 'test', true).transport).toMatchObject({ target: 'pino-pretty' })
    expect(loggerOptions('info', 'production', true).transport).toBeUndefined()
    expect(loggerOptions('info', 'development', false).transport).toBeUndefined()
  })

  it('writes JSON lines in batches wherever it does not print them readable', () => {
    expect(serviceLogger('info', 'production', false).options.stream).toBeInstanceOf(BatchedLog)
    expect(serviceLogger('info', 'development', false).options.stream).toBeInstanceOf(BatchedLog)
    expect(serviceLogger('info', 'development', true).options).toMatchObject({ transport: { target: 'pino-pretty' } })
    expect(serviceLogger('info', 'development', true).options.stream).toBeUndefined()
  })
})

describe('batched log lines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'club-batched-log-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  let files = 0
  const open = (): { file: string, fd: number } => {
    const file = join(dir, `log-${files++}`)
    return { file, fd: openSync(file, 'w') }
  }

  it('holds a line for the flush period, then writes it; flushSync writes at once', async () => {
    const { file, fd } = open()
    const log = new BatchedLog(fd, 50)
    log.write('{"n":1}\n')
    log.write('{"n":2}\n')
    expect(readFileSync(file, 'utf8')).toBe('')
    const deadline = Date.now() + 5_000
    while (readFileSync(file, 'utf8') === '' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n')
    log.write('{"n":3}\n')
    log.flushSync()
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n')
    closeSync(fd)
  })

  it('writes every line whole and in order, however long and many (property)', () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 6_000 }), { maxLength: 40 }), (texts) => {
      const { file, fd } = open()
      const lines = texts.map((text) => `${JSON.stringify({ text })}\n`)
      const log = new BatchedLog(fd)
      for (const line of lines) log.write(line)
      log.flushSync()
      closeSync(fd)
      expect(readFileSync(file, 'utf8')).toBe(lines.join(''))
    }), { numRuns: 50 })
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
