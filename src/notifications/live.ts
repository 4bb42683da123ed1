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

// A subscription refused (the subscriber connection reconnecting, Redis busy) is tried again this many times,
// this far apart times the attempt, before the stream that asked is told and closed.
const SUBSCRIBE_ATTEMPTS = 4
const SUBSCRIBE_RETRY_MS = 100

/** A channel's listeners and the one subscription they share (settled: subscribed, or failed for all of them). */
interface Channel {
  listeners: Set<LiveListener>
  subscribed: Promise<void>
}

/** Resolves once the client is ready for commands (connecting it when it waits to be). */
async function whenReady (client: RedisClient): Promise<void> {
  if (client.status === 'ready') return
  if (client.status === 'wait') {
    await client.connect()
    return
  }
  await new Promise<void>((resolve, reject) => {
    const ready = (): void => { client.off('end', gone); resolve() }
    const gone = (): void => { client.off('ready', ready); reject(new Error('the live updates connection closed')) }
    client.once('ready', ready)
    client.once('end', gone)
  })
}

/**
 * One subscriber connection per instance (a duplicate of the shared client, opened on first use), one
 * Redis channel per recipient or role. ioredis' keyPrefix does not apply to channel names, so the
 * configured prefix is added here to keep deployments sharing a Redis apart.
 *
 * A channel's first listener subscribes it and the others wait for that subscription: a listener is answered
 * only once the channel is subscribed, and a subscription that fails every attempt fails all of its listeners
 * and leaves none registered. The last listener to leave unsubscribes it unless a new one has come meanwhile.
 */
export class RedisLiveHub implements LiveHub {
  private readonly channels = new Map<string, Channel>()
  private subscriber: { client: RedisClient, ready: Promise<void> } | undefined

  constructor (private readonly redis: RedisClient, private readonly prefix: string, private readonly onError: (err: Error) => void) {}

  private connection (): { client: RedisClient, ready: Promise<void> } {
    if (this.subscriber) return this.subscriber
    const client = this.redis.duplicate()
    client.on('error', this.onError)
    client.on('message', (channel: string, raw: string) => {
      if (!channel.startsWith(this.prefix)) return
      const listeners = this.channels.get(channel.slice(this.prefix.length))?.listeners
      if (!listeners) return
      const message = JSON.parse(raw) as LiveMessage
      for (const listener of [...listeners]) listener(message)
    })
    // Nothing is subscribed before the connection is ready: a SUBSCRIBE written under ioredis' ready check puts
    // the connection in subscriber mode before its INFO, which Redis then refuses ("ERR Can't execute 'info'"),
    // failing that subscription and the connection's next ones.
    const ready = whenReady(client)
    const subscriber = { client, ready }
    ready.catch(() => {
      if (this.subscriber !== subscriber) return
      this.subscriber = undefined
      client.disconnect()
    })
    this.subscriber = subscriber
    return subscriber
  }

  private async attach (name: string, channel: Channel): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { client, ready } = this.connection()
        await ready
        // every listener left while the connection opened: nothing to subscribe
        if (this.channels.get(name) !== channel) return
        await client.subscribe(this.prefix + name)
        return
      } catch (err) {
        if (attempt >= SUBSCRIBE_ATTEMPTS) throw err
        this.onError(err as Error)
        await new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_RETRY_MS * attempt))
      }
    }
  }

  async publish (channel: string, message: LiveMessage) {
    await this.redis.publish(this.prefix + channel, JSON.stringify(message))
  }

  async subscribe (name: string, listener: LiveListener) {
    let channel = this.channels.get(name)
    if (!channel) {
      const made: Channel = { listeners: new Set(), subscribed: Promise.resolve() }
      made.subscribed = this.attach(name, made)
      made.subscribed.catch(() => { if (this.channels.get(name) === made) this.channels.delete(name) })
      this.channels.set(name, channel = made)
    }
    channel.listeners.add(listener)
    try {
      await channel.subscribed
    } catch (err) {
      channel.listeners.delete(listener)
      throw err
    }
    const joined = channel
    return async () => {
      if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return
      if (this.channels.get(name) === joined) this.channels.delete(name)
      // A listener that came since has a channel of its own, subscribed after this point: leave it be.
      if (this.channels.has(name)) return
      await this.subscriber?.client.unsubscribe(this.prefix + name)
    }
  }

  listenerCount () {
    let n = 0
    for (const channel of this.channels.values()) n += channel.listeners.size
    return n
  }

  async close () {
    const subscriber = this.subscriber
    this.subscriber = undefined
    this.channels.clear()
    if (subscriber) await subscriber.client.quit().catch(() => { subscriber.client.disconnect() })
  }
}
