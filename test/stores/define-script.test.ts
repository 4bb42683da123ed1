import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { deleteKeysWithPrefix } from '../../scripts/lib/redis-server.ts'
import { createRedis } from '../../src/plugins/redis.ts'
import { defineScript } from '../../src/stores/define-script.ts'

// The service's clients auto-pipeline (src/plugins/redis.ts): a script's first call on a client, in the same tick
// as other commands, goes in the same batch and each caller gets its own answer.
const append = defineScript<[suffix: string], string>({
  name: 'testDefineScriptAppend',
  keys: 1,
  lua: "return redis.call('APPEND', KEYS[1], ARGV[1]) .. ':' .. redis.call('GET', KEYS[1])",
  decode: (raw) => String(raw),
})

describe('defineScript on an auto-pipelining client', () => {
  const prefix = `test:${randomUUID()}:`
  const redis = createRedis(inject('redisUrl'), prefix)
  afterAll(async () => {
    await deleteKeysWithPrefix(inject('redisUrl'), prefix)
    await redis.quit()
  })

  it('runs its first call in a batch with other commands', async () => {
    await redis.connect()
    const [set, appended, got] = await Promise.all([redis.set('k', 'a'), append(redis, ['k'], 'b'), redis.get('k')])
    expect([set, appended, got]).toEqual(['OK', '2:ab', 'ab'])
  })
})
