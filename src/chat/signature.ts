import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

// Inbound chat calls carry `X-Webhook-Signature`: hex HMAC-SHA256 of the raw, unparsed body (spec, Authentication 6).

const HEX_DIGEST = /^[0-9a-f]{64}$/

/**
 * Each secret as a key object, made once: given the string, createHmac encodes it into a new Buffer and checks it on
 * every call (a tenth of a webhook's verification). A process has a few secrets; the cache is cleared past 16.
 */
const keys = new Map<string, KeyObject>()
function keyOf (secret: string): KeyObject {
  let key = keys.get(secret)
  if (key === undefined) {
    if (keys.size >= 16) keys.clear()
    key = createSecretKey(Buffer.from(secret, 'utf8'))
    keys.set(secret, key)
  }
  return key
}

function digest (secret: string, rawBody: Buffer | string): Buffer {
  return createHmac('sha256', keyOf(secret)).update(rawBody).digest()
}

/** The header value a sender puts on `rawBody`: lowercase hex, no prefix. */
export function signWebhookBody (secret: string, rawBody: Buffer | string): string {
  return digest(secret, rawBody).toString('hex')
}

/**
 * True exactly when `header` is the signature of `rawBody`. Accepts an optional `sha256=` prefix and any
 * letter case; anything malformed is false, never an exception. The compare is constant-time.
 */
export function verifyWebhookSignature (secret: string, rawBody: Buffer | string, header: string | undefined): boolean {
  if (typeof header !== 'string') return false
  const hex = header.trim().toLowerCase().replace(/^sha256=/, '')
  if (!HEX_DIGEST.test(hex)) return false
  return timingSafeEqual(Buffer.from(hex, 'hex'), digest(secret, rawBody))
}

/**
 * The one raw-body mechanism of the signed routes: in this (encapsulated) scope every body stays the Buffer
 * that was sent, whatever its content type, so the signature is checked on exactly those bytes before anything
 * reads them. No body at all is an empty Buffer, which no forged signature matches.
 */
export function keepRawBodies (scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => { done(null, body) })
}

/** The raw bytes of a body kept by `keepRawBodies`. */
export function rawBodyOf (body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0)
}
