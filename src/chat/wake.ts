import type { Redis } from 'ioredis'
import { keys } from '../stores/keys.ts'
import { shardOf } from './shards.ts'
import type { Lane } from './store.ts'

// Wakes the other instances when this one accepted more mail than its own workers can take at once, or handed
// phones back at shutdown: the phones go out on their shard's pub/sub channel (SPUBLISH, so a Redis Cluster
// keeps each on one shard's nodes) as `<lane>:<phone>,<phone>...`. An idle instance waits on its subscription
// rather than polling.

export class WakeChannel {
  private subscriber: Redis | undefined

  constructor (private readonly redis: Redis, private readonly prefix: string, private readonly shards: number) {}

  private channel (shard: number): string { return this.prefix + keys.chat.bot.wake(shard) }

  async listen (onWake: (lane: Lane, phones: string[]) => void): Promise<void> {
    const sub = this.redis.duplicate()
    sub.on('error', () => {})
    sub.on('smessage', (_channel: string, message: string) => {
      const [lane, phones] = message.split(':')
      if ((lane === 'turn' || lane === 'send') && phones) onWake(lane, phones.split(','))
    })
    this.subscriber = sub
    await sub.ssubscribe(...Array.from({ length: this.shards }, (_, s) => this.channel(s)))
  }

  async publish (lane: Lane, phones: string[]): Promise<void> {
    const byShard = new Map<number, Set<string>>()
    for (const phone of phones) {
      const s = shardOf(phone, this.shards)
      byShard.set(s, (byShard.get(s) ?? new Set()).add(phone))
    }
    await Promise.all([...byShard].map(async ([s, group]) => { await this.redis.spublish(this.channel(s), `${lane}:${[...group].join(',')}`) }))
  }

  close (): void { this.subscriber?.disconnect() }
}
