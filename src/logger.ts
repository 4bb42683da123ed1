import type { LoggerOptions } from 'pino'

// Secrets, tokens and passwords never reach a log line.
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-webhook-signature"]',
  'req.headers["x-publishable-api-key"]',
  '*.password',
  '*.token',
  '*.secret',
  '*.apiKey',
  '*.adminPassword',
  '*.authorization',
  '*.*.password',
  '*.*.token',
]

export function loggerOptions (level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  }
}
