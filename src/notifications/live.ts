import type { RedisClient } from '../stores/redis-client.ts'
import type { Notification } from './model.ts'

/** What a connected client is told. `broadcast` asks the stream to collect new role notices. */
export type LiveMessage =
  | { type: 'notification', notification: Notification, unreadCount: number }
  | { type: 'unread-count', count: number }
  | { type: 'broadcast' }
  /** Chat conversation activity of a club (src/chat/inbox/stream.ts). */
  | { type: 'chat', event: unknown }
  /** A staff member was removed or changed role: their open streams end (src/sse.ts). */
  | { type: 'access-changed' }
export type LiveListener = (message: LiveMessage) => void

/** Pub/sub of live updates across instances (Redis) or within one process (memory). */
export interface LiveHub {
  publish (channel: string, message: LiveMessage): Promise<void>
  /** Answers the unsubscribe function. */
  subscribe (channel: string, listener: LiveListener): Promise<() => Promise<void>>
  /** Listeners now attached, over all channels. */
  listenerCount (): number
  close (): Promise<void>
}

class Listeners {
  private readonly byChannel = new Map<string, Set<LiveListener>>()

  /** true when it is the channel's first listener. */
  add (channel: string, listener: LiveListener): boolean {
    let set = this.byChannel.get(channel)
    if (!set) this.byChannel.set(channel, set = new Set())
    set.add(listener)
    return set.size === 1
  }

  /** true when the channel has no listener left. */
  remove (channel: string, listener: LiveListener): boolean {
    const set = this.byChannel.get(channel)
    if (!set?.delete(listener)) return false
    if (set.size > 0) return false
    this.byChannel.delete(channel)
    return true
  }

  dispatch (channel: string, message: LiveMessage): void {
    for (const listener of this.byChannel.get(channel) ?? []) listener(message)
  }

  count (): number {
    let n = 0
    for (const set of this.byChannel.values()) n += set.size
    return n
  }
}

export class MemoryLiveHub implements LiveHub {
  private readonly listeners = new Listeners()

  async publish (channel: string, message: LiveMessage) { this.listeners.dispatch(channel, message) }

  async subscribe (channel: string, listener: LiveListener) {
    this.listeners.add(channel, listener)
    return async () => { this.listeners.remove(channel, listener) }
  }

  listenerCount () { return this.listeners.count() }
  async close () {}
}

/**
 * One subscriber connection per instance (a duplicate of the shared client, opened on first use), one
 * Redis channel per recipient or role. ioredis' keyPrefix does not apply to channel names, so the
 * configured prefix is added here to keep deployments sharing a Redis apart.
 */
export class RedisLiveHub implements LiveHub {
  private readonly listeners = new Listeners()
  private subscriber: RedisClient | undefined

  constructor (private readonly redis: RedisClient, private readonly prefix: string, private readonly onError: (err: Error) => void) {}

  private connection (): RedisClient {
    if (this.subscriber) return this.subscriber
    const sub = this.redis.duplicate()
    sub.on('error', this.onError)
    sub.on('message', (channel: string, raw: string) => {
      if (!channel.startsWith(this.prefix)) return
      this.listeners.dispatch(channel.slice(this.prefix.length), JSON.parse(raw) as LiveMessage)
    })
    this.subscriber = sub
    return sub
  }

  async publish (channel: string, message: LiveMessage) {
    await this.redis.publish(this.prefix + channel, JSON.stringify(message))
  }

  async subscribe (channel: string, listener: LiveListener) {
    if (this.listeners.add(channel, listener)) await this.connection().subscribe(this.prefix + channel)
    return async () => {
      if (this.listeners.remove(channel, listener)) await this.subscriber?.unsubscribe(this.prefix + channel)
    }
  }

  listenerCount () { return this.listeners.count() }

  async close () {
    await this.subscriber?.quit()
    this.subscriber = undefined
  }
}
