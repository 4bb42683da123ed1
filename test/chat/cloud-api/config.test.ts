import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { GRAPH_API_BASE_URL, loadConfig } from '../../../src/config.ts'

// CHAT_PROVIDER=cloud-api starts only with Meta's secret, the handshake's token and a readable RSA private key.

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
const cloud = { CHAT_PROVIDER: 'cloud-api', CHAT_APP_SECRET: 'a'.repeat(32), CHAT_VERIFY_TOKEN: 'v'.repeat(20), CHAT_FLOWS_PRIVATE_KEY: pem }

describe('cloud-api configuration', () => {
  it('defaults to the partner provider, without Meta\'s settings', () => {
    const config = loadConfig({})
    expect(config.chat.provider).toBe('partner')
    expect(config.chat.cloud).toBeUndefined()
    expect(config.chat.apiBaseUrl).toBeUndefined()
  })

  it('reads the key (line breaks written as \\n too) and sends to the Graph API unless told otherwise', () => {
    const config = loadConfig({ ...cloud, CHAT_FLOWS_PRIVATE_KEY: pem.replaceAll('\n', '\\n') })
    expect(config.chat.provider).toBe('cloud-api')
    expect(config.chat.apiBaseUrl).toBe(GRAPH_API_BASE_URL)
    expect(config.chat.cloud?.flowsPrivateKey.asymmetricKeyType).toBe('rsa')
    expect(loadConfig({ ...cloud, CHAT_API_BASE_URL: 'http://127.0.0.1:9999' }).chat.apiBaseUrl).toBe('http://127.0.0.1:9999')
  })

  it('names what is missing or unreadable, never the key itself', () => {
    expect(() => loadConfig({ CHAT_PROVIDER: 'cloud-api' })).toThrow('CHAT_PROVIDER=cloud-api needs CHAT_APP_SECRET, CHAT_VERIFY_TOKEN, CHAT_FLOWS_PRIVATE_KEY')
    const garbled = `${pem.slice(0, 60)}garbled${pem.slice(70)}`
    expect(() => loadConfig({ ...cloud, CHAT_FLOWS_PRIVATE_KEY: garbled })).toThrow(/CHAT_FLOWS_PRIVATE_KEY is not a readable PEM private key/)
    try {
      loadConfig({ ...cloud, CHAT_FLOWS_PRIVATE_KEY: garbled })
    } catch (err) {
      expect((err as Error).message).not.toContain('garbled')
    }
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    expect(() => loadConfig({ ...cloud, CHAT_FLOWS_PRIVATE_KEY: ec })).toThrow(/must be an RSA key/)
    expect(() => loadConfig({ ...cloud, CHAT_PROVIDER: 'meta' })).toThrow(/CHAT_PROVIDER/)
  })
})
