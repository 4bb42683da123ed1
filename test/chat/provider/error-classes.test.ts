import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { classifyError, errorCodeOf, failureOutcome } from '../../../src/chat/provider/error-classes.ts'

// Each error class is recognised from the code (never the text), whichever path reported it.

describe('error classes', () => {
  it('names the four classes from their codes, with or without an HTTP status', () => {
    for (const httpStatus of [undefined, 400, 403, 429, 500]) {
      expect(classifyError({ httpStatus, code: 131056 })).toBe('pair-rate')
      expect(classifyError({ httpStatus, code: 131047 })).toBe('window-closed')
      expect(classifyError({ httpStatus, code: 130429 })).toBe('throughput')
    }
    expect(classifyError({ httpStatus: 400, code: 131026 })).toBe('permanent')
    expect(classifyError({ code: 131026 })).toBe('permanent')
    expect(classifyError({ httpStatus: 429 })).toBe('throughput')
    expect(classifyError({ httpStatus: 503 })).toBe('transient')
    expect(classifyError({ httpStatus: 400, code: 131000 })).toBe('transient')
    expect(classifyError({ httpStatus: 400 })).toBe('permanent')
  })

  it('is total: any code and status get one class, and 4xx without a known code is permanent', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }), fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }), (
        httpStatus, code
      ) => {
        const c = classifyError({ httpStatus, code })
        expect(['pair-rate', 'window-closed', 'throughput', 'transient', 'permanent']).toContain(c)
        if (code === undefined && httpStatus !== undefined && httpStatus >= 400 && httpStatus < 500 && httpStatus !== 429) expect(c).toBe('permanent')
      })
    )
  })

  it('reads the code of an answer body, never its text', () => {
    expect(errorCodeOf(JSON.stringify({ error: { code: 131047, message: 'Re-engagement message' } }))).toBe(131047)
    expect(errorCodeOf(JSON.stringify({ error: { message: '131056 pair rate limit' } }))).toBeUndefined()
    fc.assert(fc.property(fc.string(), (body) => { expect(() => errorCodeOf(body)).not.toThrow() }))
  })

  it('an update that failed becomes its template when the window is closed, else the inbox; a reply is never a template', () => {
    expect(failureOutcome({ kind: 'update', source: 'failed', windowOpen: false, errorClass: undefined })).toBe('template')
    expect(failureOutcome({ kind: 'update', source: 'refused', windowOpen: true, errorClass: 'window-closed' })).toBe('template')
    expect(failureOutcome({ kind: 'update', source: 'failed', windowOpen: true, errorClass: 'transient' })).toBe('inbox')
    expect(failureOutcome({ kind: 'update', source: 'refused', windowOpen: false, errorClass: 'permanent' })).toBe('dead-letter')
    expect(failureOutcome({ kind: 'reply', source: 'refused', windowOpen: true, errorClass: 'window-closed' })).toBe('dead-letter')
    expect(failureOutcome({ kind: 'reply', source: 'failed', windowOpen: false, errorClass: 'window-closed' })).toBe('history')
  })
})
