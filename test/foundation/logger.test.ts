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
