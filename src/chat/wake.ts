import type { Redis } from 'ioredis'
import { keys } from '../stores/keys.ts'
import { shardOf } from './shards.ts'

// Wakes the other instances when this one accepted more mail than its own workers can take at once: the
// phones go out on their shard's pub/sub channel (SPUBLISH, so a Redis Cluster keeps each on one shard's
// nodes). An idle instance therefore waits on its subscription rather than polling.

export class WakeChannel {
  private subscriber: Redis | undefined

  constructor (private readonly redis: Redis, private readonly prefix: string, private readonly shards: number) {}

  private channel (shard: number): string { return this.prefix + keys.chat.bot.wake(shard) }

  async listen (onPhones: (phones: string[]) => void): Promise<void> {
    const sub = this.redis.duplicate()
    sub.on('error', () => {})
    sub.on('smessage', (_channel: string, message: string) => { onPhones(message.split(',')) })
    this.subscriber = sub
    await sub.ssubscribe(...Array.from({ length: this.shards }, (_, s) => this.channel(s)))
  }

  async publish (phones: string[]): Promise<void> {
    const byShard = new Map<number, Set<string>>()
    for (const phone of phones) {
      const s = shardOf(phone, this.shards)
      byShard.set(s, (byShard.get(s) ?? new Set()).add(phone))
    }
    await Promise.all([...byShard].map(async ([s, group]) => { await this.redis.spublish(this.channel(s), [...group].join(',')) }))
  }

  close (): void { this.subscriber?.disconnect() }
}
