import { Redis } from 'ioredis'
import { startRedisServer } from '../scripts/lib/redis-server.ts'
import { RedisChatStore } from '../src/chat/store/redis.ts'
import { fmt, redisMicros, scaled, type Target } from './lib.ts'

// A busy phone's day on the chat store: one phone's messages, each accepted, taken and committed as the lane does,
// on a redis-server of its own. What Redis spends on a message (its own clock, INFO commandstats) at the end of
// the day is held against the start: a phone's record keeps what the day needs (the de-duplication markers of
// 24 hours), and a script that walked it in Lua made every message of a talkative phone, or a flooding one, dearer
// than the last, for every club on that Redis (800 µs an accept at 450 messages before markers.lua was rewritten).

const SAMPLE = 500

export async function run (): Promise<Target[]> {
  const server = await startRedisServer()
  const redis = new Redis(server.url)
  try {
    const store = new RedisChatStore(redis, 64)
    const phone = '5490007000000'
    const messages = scaled(5_000, SAMPLE * 2)
    let expected = 0
    const message = async (i: number): Promise<void> => {
      await store.accept([{ phone, id: `wamid.day-${i}`, body: 'hola' }], { deliveryKey: `day-${i}` })
      const taken = await store.takeTurn(phone, 'bench', 10_000)
      if (taken.kind !== 'ok') throw new Error(`bench/phone-day.ts: message ${i} not taken (${taken.kind})`)
      await store.commitTurn(phone, 'bench', { expected, doc: '{}', applied: [taken.work.message], message: taken.work.message, replies: [] }, 10_000)
      expected++
    }
    const sample = async (from: number): Promise<number> => {
      const before = await redisMicros(redis)
      for (let i = from; i < from + SAMPLE; i++) await message(i)
      return (await redisMicros(redis) - before) / SAMPLE
    }
    const first = await sample(0)
    for (let i = SAMPLE; i < messages - SAMPLE; i++) await message(i)
    const last = await sample(messages - SAMPLE)
    const ratio = last / first
    process.stdout.write(
      `  one phone, ${messages} messages in a day: Redis ${fmt(first)} µs a message over the first ${SAMPLE}, ` +
      `${fmt(last)} µs over the last ${SAMPLE} (${fmt(ratio)}x)\n`
    )
    return [{
      figure: `Redis time of a phone's last message of ${messages} in a day, vs its first`, value: `${fmt(ratio)}x`, target: '<= 1.5x', met: ratio <= 1.5
    }]
  } finally {
    redis.disconnect()
    await server.stop()
  }
}
