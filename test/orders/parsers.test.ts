import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../src/errors.ts'
import { parseTenantsFile, TenantsFileError } from '../../src/commerce/settings.ts'
import { mapTransportError, mapUpstreamStatus } from '../../src/commerce/upstream-errors.ts'
import { queryString } from '../../src/commerce/client.ts'

// Parsers of outside input: the tenants file and upstream error answers.

describe('upstream error mapping', () => {
  it('any upstream error status and body becomes one of the spec\'s statuses, never a 500', () => {
    const body = fc.oneof(fc.jsonValue(), fc.record({ type: fc.string(), code: fc.option(fc.string(), { nil: undefined }), message: fc.string() }))
    fc.assert(fc.property(fc.integer({ min: 300, max: 599 }), body, fc.option(fc.string(), { nil: undefined }), (status, b, retryAfter) => {
      const err = mapUpstreamStatus({ status, body: b, retryAfter })
      expect([404, 409, 422, 429, 502]).toContain(err.statusCode)
      expect(Object.keys(ERROR_CODES)).toContain(err.code)
      if (status === 429) expect(err.code).toBe('SERVICE_UNAVAILABLE')
      if (status >= 500) expect(err.statusCode).toBe(502)
      // the upstream's words never become ours
      const said = (b as { message?: unknown } | null)?.message
      if (typeof said === 'string' && said.length > 3) expect(err.message).not.toContain(said)
      // Retry-After is passed on only in a header-safe form.
      for (const v of Object.values(err.headers ?? {})) expect(v).toMatch(/^[\w ,:]+$/)
    }))
  })

  it('transport failures: timeouts are 504, the rest 502', () => {
    expect(mapTransportError({ code: 'UND_ERR_HEADERS_TIMEOUT' }).statusCode).toBe(504)
    expect(mapTransportError({ code: 'ECONNREFUSED' }).statusCode).toBe(502)
    expect(mapTransportError(null).statusCode).toBe(502)
  })

  it('query strings encode every value', () => {
    fc.assert(fc.property(fc.string(), fc.array(fc.string(), { maxLength: 3 }), (v, list) => {
      const qs = queryString({ a: v, b: list })
      const params = new URLSearchParams(qs.slice(1))
      if (qs) expect(params.getAll('b[]')).toEqual(list)
      expect(params.get('a')).toBe(v)
    }))
  })
})

describe('COMMERCE_TENANTS_FILE parsing', () => {
  const good = {
    baseUrl: 'http://127.0.0.1:9000',
    publishableKey: 'pk_1',
    regionId: 'reg_1',
    salesChannelId: 'sc_1',
    stockLocationId: 'sloc_1',
    adminEmail: 'a@b.c',
    adminPassword: 'secret-pw'
  }

  it('parses a valid file', () => {
    expect(parseTenantsFile(JSON.stringify({ 'club-norte': good }))).toEqual({ 'club-norte': good })
  })

  it('any other text is a TenantsFileError that never quotes a value', () => {
    const mutated = fc.record({
      key: fc.constantFrom(...Object.keys(good)), value: fc.oneof(fc.constant(''), fc.integer(), fc.constant(null), fc.constant('secret-pw-x'))
    })
    fc.assert(fc.property(fc.oneof(fc.string(), mutated.map(({ key, value }) => JSON.stringify({ 'club-norte': { ...good, [key]: value } }))), (text) => {
      try {
        parseTenantsFile(text)
      } catch (err) {
        expect(err).toBeInstanceOf(TenantsFileError)
        expect((err as Error).message).not.toContain('secret-pw')
      }
    }))
  })
})
