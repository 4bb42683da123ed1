import { Writable } from 'node:stream'
import fc from 'fast-check'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearerToken } from '../../src/auth/tokens.ts'
import { AppError } from '../../src/errors.ts'
import { loggerOptions } from '../../src/logger.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

describe('rate limit', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'redis', env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' } }) })
  afterAll(async () => { await t.close() })

  it('answers 429 in the envelope with Retry-After once the limit is spent, shared through Redis', async () => {
    const codes: number[] = []
    for (let i = 0; i < 4; i++) codes.push((await t.app.inject('/api/nowhere')).statusCode)
    expect(codes).toEqual([404, 404, 404, 429])
    const res = await t.app.inject('/api/nowhere')
    expect(res.statusCode).toBe(429)
    expect(res.json().error.code).toBe('RATE_LIMITED')
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
    const keys = await t.redis!.keys(`${t.config.redisKeyPrefix}rate-limit:*`)
    expect(keys.length).toBeGreaterThan(0)
  })

  it('never limits the health probe', async () => {
    expect((await t.app.inject('/health')).statusCode).toBe(200)
  })
})

describe('OpenAPI', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'memory' }) })
  afterAll(async () => { await t.close() })

  it('serves the document generated from the routes and the UI', async () => {
    const doc = (await t.app.inject('/openapi.json')).json()
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.paths['/health']).toBeDefined()
    expect(doc.components.securitySchemes.bearer.scheme).toBe('bearer')
    const ui = await t.app.inject('/docs/')
    expect(ui.statusCode).toBe(200)
    expect(ui.headers['content-type']).toMatch(/html/)
  })
})

describe('logging', () => {
  it('redacts authorization headers, tokens, passwords and secrets', () => {
    const lines: string[] = []
    const sink = new Writable({ write (chunk, _enc, done) { lines.push(String(chunk)); done() } })
    const log = pino(loggerOptions('info'), sink)
    log.info({ req: { headers: { authorization: 'Bearer abc.def.ghi' } }, body: { password: 'hunter2', token: 'tok-123' }, cfg: { secret: 's3cr3t' } }, 'hello')
    const out = lines.join('')
    for (const leaked of ['abc.def.ghi', 'hunter2', 'tok-123', 's3cr3t']) expect(out).not.toContain(leaked)
    expect(out).toContain('[redacted]')
  })

  // A secret-named field anywhere down to four levels (a request's headers, a body, a config, a list of them) is
  // censored whatever its letter case and whatever sits beside it; what the caller logged is left as it was; a line
  // holding no such name is written exactly as logged (the censor copies nothing then).
  const names = fc.constantFrom('authorization', 'Cookie', 'x-webhook-signature', 'X-Hub-Signature-256', 'password', 'adminPassword',
    'token', 'TOKEN', 'secret', 'apiKey', 'apikey')
  const plainKey = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !/password|token|secret|apikey|cookie|authorization|signature/i.test(k) &&
    !['err', 'req', 'res', 'level', 'time', 'pid', 'hostname', 'msg', '__proto__', 'constructor'].includes(k))
  const plain = fc.dictionary(plainKey, fc.jsonValue({ maxDepth: 3 }).filter((v) => !/password|token|secret|apikey|cookie|authorization|signature/i
    .test(JSON.stringify(v))), { maxKeys: 4 })
  const logged = (fields: object) => {
    const lines: string[] = []
    const log = pino(loggerOptions('info'), new Writable({ write (chunk, _enc, done) { lines.push(String(chunk)); done() } }))
    log.info(fields, 'line')
    return JSON.parse(lines.join('')) as Record<string, unknown>
  }

  it('censors a secret at any depth to four, in objects and lists, and changes nothing logged', () => {
    const below = fc.array(fc.oneof(plainKey, fc.constant(0)), { maxLength: 2 })
    fc.assert(fc.property(plain, fc.option(plainKey, { nil: undefined }), below, names, (fields, top, path, name) => {
      const secret = `s3cr3t-${path.length}-${name}`
      // the secret's field at level 1 (top undefined), or under `top` and then each step of `path` (0: a list)
      let value: unknown = { [name]: secret }
      for (const step of [...path].reverse()) value = step === 0 ? [value] : { [step]: value }
      const input = top === undefined ? { ...fields, [name]: secret } : { ...fields, [top]: value }
      const before = structuredClone(input)
      const out = JSON.stringify(logged(input))
      expect(out).not.toContain(secret)
      expect(out).toContain('[redacted]')
      expect(input).toEqual(before)
    }))
  })

  it('writes a line without a secret exactly as logged', () => {
    fc.assert(fc.property(plain, (fields) => {
      const { level, time, pid, hostname, msg, ...rest } = logged(fields)
      expect(rest).toEqual(JSON.parse(JSON.stringify(fields)))
      expect([level, msg]).toEqual([30, 'line'])
    }))
  })
})

describe('bearer header parser', () => {
  it('never throws anything but an AppError 401, and returns exactly the token when well formed', () => {
    fc.assert(fc.property(fc.option(fc.string(), { nil: undefined }), (header) => {
      try {
        const token = bearerToken(header)
        expect(header?.trim()).toBe(`Bearer ${token}`)
      } catch (err) {
        expect(err).toBeInstanceOf(AppError)
        expect((err as AppError).statusCode).toBe(401)
      }
    }))
  })
})
