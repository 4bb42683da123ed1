import { Writable } from 'node:stream'
import type { Redis } from 'ioredis'
import { signWebhookBody } from '../../src/chat/signature.ts'
import { keys } from '../../src/stores/keys.ts'
import { TEST_SECRETS, type TestApp } from '../helper.ts'

/** Every log line the app writes, as text, for grepping. */
export function captureLog (): { stream: Writable, text: () => string } {
  const lines: string[] = []
  return {
    stream: new Writable({ write (chunk, _enc, done) { lines.push(String(chunk)); done() } }),
    text: () => lines.join(''),
  }
}

/**
 * The app's whole Redis state (every key under its prefix with its serialized value), except the request rate
 * limiter's counters, which every request moves. Equal snapshots before and after an attack: nothing changed.
 */
export async function redisState (t: TestApp): Promise<Map<string, string>> {
  const redis = t.redis as Redis
  const prefix = redis.options.keyPrefix ?? ''
  const state = new Map<string, string>()
  for (const full of (await redis.keys('*')).sort()) {
    const key = full.slice(prefix.length)
    // what changes on its own: rate-limit counters, the chat instances' heartbeats (every second)
    if (key.startsWith('rate-limit:') || key === keys.chat.instances()) continue
    state.set(key, (await redis.dumpBuffer(key))?.toString('hex') ?? '')
  }
  return state
}

export const FLOW_ENDPOINT = '/api/chat/flow-endpoint'

/** A flow endpoint call with the given raw body and headers (no signature unless given). */
export function flowCall (raw: string, headers: Record<string, string> = {}) {
  return { method: 'POST' as const, url: FLOW_ENDPOINT, headers: { 'content-type': 'application/json', ...headers }, payload: raw }
}

export const sign = (raw: string, secret: string = TEST_SECRETS.CHAT_WEBHOOK_SECRET): string => signWebhookBody(secret, raw)
