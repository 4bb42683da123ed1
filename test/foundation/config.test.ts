import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'

describe('config', () => {
  it('runs on embedded defaults with demo data and made-up development secrets', () => {
    const config = loadConfig({})
    expect(config.port).toBe(3000)
    expect(config.host).toBe('127.0.0.1')
    expect(config.redisUrl).toBeUndefined()
    expect(config.seed).toBe('demo')
    expect(config.generatedSecrets).toEqual(['JWT_SECRET', 'CRON_API_SECRET', 'CHAT_WEBHOOK_SECRET'])
    expect(config.jwtSecret).toMatch(/^[0-9a-f]{64}$/)
    expect(Object.isFrozen(config)).toBe(true)
  })

  it('seeds nothing by default once Redis is configured', () => {
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).seed).toBe('none')
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', SEED: 'demo' }).seed).toBe('demo')
  })

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ REDIS_URL: 'http://localhost' }, /REDIS_URL must be a redis/],
    [{ JWT_SECRET: 'short' }, /JWT_SECRET must be at least 16/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ COMMERCE_URL: 'not a url' }, /COMMERCE_URL/],
    [{ SEED: 'everything' }, /SEED/],
    [{ CHAT_SEND_RATE: '0' }, /CHAT_SEND_RATE/],
    [{ CHAT_SEND_RATE: '5000' }, /CHAT_SEND_RATE/],
    [{ CHAT_SEND_RATE: 'fast' }, /CHAT_SEND_RATE/],
    [{ CATALOG_CACHE_MS: '-1' }, /CATALOG_CACHE_MS/],
    [{ CATALOG_CACHE_MS: 'soon' }, /CATALOG_CACHE_MS/],
    [{ CHAT_LANES: 'maybe' }, /CHAT_LANES/],
    [{ CHAT_LANES: 'off' }, /CHAT_LANES=off needs REDIS_URL/],
  ])('a bad value stops the start with one line naming the variable (%o)', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(message)
  })

  it('production refuses missing secrets or Redis', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow('production needs JWT_SECRET, CRON_API_SECRET, CHAT_WEBHOOK_SECRET, REDIS_URL')
    const secrets = { JWT_SECRET: 'x'.repeat(32), CRON_API_SECRET: 'y'.repeat(32), CHAT_WEBHOOK_SECRET: 'z'.repeat(32) }
    expect(() => loadConfig({ NODE_ENV: 'production', ...secrets })).toThrow('production needs REDIS_URL')
    const ok = loadConfig({ NODE_ENV: 'production', ...secrets, REDIS_URL: 'redis://127.0.0.1:6379' })
    expect(ok.generatedSecrets).toEqual([])
    // the chat provider's development values: warned about at start in production, by name
    expect(ok.devChatProvider).toEqual(['CHAT_API_BASE_URL', 'CHAT_API_KEY', 'CHAT_PHONE_NUMBER_ID'])
    const provider = { CHAT_API_BASE_URL: 'https://provider.example', CHAT_API_KEY: 'k', CHAT_PHONE_NUMBER_ID: '5491100000000' }
    expect(loadConfig({ NODE_ENV: 'production', ...secrets, REDIS_URL: 'redis://127.0.0.1:6379', ...provider }).devChatProvider).toEqual([])
    expect(ok.jwtSecret).toBe(secrets.JWT_SECRET)
  })

  it('runs the chat lanes unless told not to, which takes a shared Redis', () => {
    expect(loadConfig({}).chat.lanes).toBe(true)
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', CHAT_LANES: 'off' }).chat.lanes).toBe(false)
    expect(loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000', COMMERCE_URL: 'http://127.0.0.1:9000', CHAT_LANES: 'off' }).chat.lanes).toBe(false)
  })

  it('treats empty values as unset', () => {
    expect(loadConfig({ REDIS_URL: '', PORT: '' }).redisUrl).toBeUndefined()
  })
})
