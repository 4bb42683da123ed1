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

/**
 * JSON lines (what log shippers read) in production and whenever stdout is not a terminal; readable lines
 * through pino-pretty on a terminal in development.
 */
export function loggerOptions (level: string, env = 'production', tty = process.stdout.isTTY === true): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    ...(tty && env !== 'production' ? { transport: prettyTransport } : {}),
  }
}

const prettyTransport = { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } }
