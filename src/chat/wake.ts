import type { RedisClient } from '../stores/redis-client.ts'
import { keys } from '../stores/keys.ts'
import { shardOf } from '../stores/shards.ts'
import type { Lane } from './store/index.ts'

// Wakes the other instances when this one accepted more mail than its own workers can take at once, handed
// phones back at shutdown, or runs no lanes at all (CHAT_LANES=off: every phone it finds work for): the phones
// go out on their shard's pub/sub channel (SPUBLISH, so a Redis Cluster keeps each on one shard's nodes) as
// `<sender>:<lane>:<phone>,<phone>...`, gathered for a few milliseconds so that a burst costs one message per
// shard, not one per webhook call. An idle instance waits on its subscription rather than polling.

const GATHER_MS = 20
/** A wake-up that could not be published is tried again this much later (a web instance's only way to hand work on). */
const RETRY_MS = 1_000

export class WakeChannel {
  private subscriber: RedisClient | undefined
  private readonly pending: Record<Lane, Set<string>> = { turn: new Set(), send: new Set() }
  private timer: NodeJS.Timeout | undefined
  private closed = false

  constructor (private readonly redis: RedisClient, private readonly prefix: string, private readonly shards: number, private readonly self: string) {}

  private channel (shard: number): string { return this.prefix + keys.chat.bot.wake(shard) }

  /**
   * Subscribes to every shard's channel. `onResubscribed` is told when the subscription's connection came back
   * after a loss (ioredis subscribes again by itself): what was announced meanwhile is lost, a sweep finds it.
   */
  async listen (onWake: (lane: Lane, phones: string[]) => void, onResubscribed: () => void = () => {}): Promise<void> {
    const sub = this.redis.duplicate()
    sub.on('error', () => {})
    let connectedBefore = false
    sub.on('ready', () => {
      if (connectedBefore) onResubscribed()
      connectedBefore = true
    })
    sub.on('smessage', (_channel: string, message: string) => {
      const [from, lane, phones] = message.split(':')
      if (from !== this.self && (lane === 'turn' || lane === 'send') && phones) onWake(lane, phones.split(','))
    })
    this.subscriber = sub
    // one channel per call: on a Redis Cluster the shards' channels hash to different slots (CROSSSLOT otherwise)
    await Promise.all(Array.from({ length: this.shards }, async (_, s) => await sub.ssubscribe(this.channel(s))))
  }

  announce (lane: Lane, phones: string[], onError: (err: Error) => void): void {
    for (const phone of phones) this.pending[lane].add(phone)
    this.timer ??= setTimeout(() => { this.flush(onError).catch(onError) }, GATHER_MS)
  }

  /** Publishes what is gathered; the phones of a message that failed are gathered again and retried. */
  private async flush (onError: (err: Error) => void): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    const messages: Array<[number, Lane, string[]]> = []
    for (const lane of ['turn', 'send'] as const) {
      const byShard = new Map<number, string[]>()
      for (const phone of this.pending[lane]) {
        const s = shardOf(phone, this.shards)
        const group = byShard.get(s)
        if (group) group.push(phone)
        else byShard.set(s, [phone])
      }
      this.pending[lane].clear()
      for (const [s, group] of byShard) messages.push([s, lane, group])
    }
    const sent = await Promise.allSettled(
      messages.map(async ([s, lane, group]) => await this.redis.spublish(this.channel(s), `${this.self}:${lane}:${group.join(',')}`))
    )
    const failed = sent.flatMap((r, i) => r.status === 'rejected' ? [{ err: r.reason as Error, message: messages[i] as [number, Lane, string[]] }] : [])
    if (failed.length === 0 || this.closed) return
    for (const { message: [, lane, group] } of failed) for (const phone of group) this.pending[lane].add(phone)
    this.timer ??= setTimeout(() => { this.flush(onError).catch(onError) }, RETRY_MS)
    throw (failed[0] as { err: Error }).err
  }

  /** Sends what is gathered (the phones a shutdown handed back), then stops listening. */
  async close (): Promise<void> {
    this.closed = true
    await this.flush(() => {})
    this.subscriber?.disconnect()
  }
}
