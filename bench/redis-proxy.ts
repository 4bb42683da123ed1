import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net'

// A TCP proxy between the service and its Redis that counts sequential round trips: on each connection, a
// burst of bytes from the client counts once when the server has answered something since the client's last
// burst (commands written in one go, or pipelined before any answer came back, are one round trip; a command
// sent after waiting for an answer is another). Counted per connection and summed, so commands the client sends
// side by side on two connections count twice: an upper bound of the round trips a turn waits for.
//
// It can also slow Redis down (the fault suite's slow-Redis case): while `latency` is set, each direction of a
// connection holds its bytes for a random time in [minMs, maxMs], one hold after the other: what arrives during a
// hold goes out together after the next one. So a command waits one to two holds each way, behind the others on
// its connection, as on a slow link that the service's one connection per instance shares.

export interface RedisProxy {
  url: string
  /** When each round trip started (performance clock, ms), oldest first. */
  roundTrips: number[]
  /** Added each way while set. */
  latency: { minMs: number, maxMs: number } | undefined
  close: () => Promise<void>
}

export async function startRedisProxy (target: { host: string, port: number }): Promise<RedisProxy> {
  /** Writes to `to` after the proxy's latency, if any, in order. */
  const delayed = (to: Socket): (chunk: Buffer) => void => {
    let held: Buffer[] = []
    let holding = false
    const hold = (): void => {
      const latency = proxy.latency
      if (held.length === 0 || !latency) {
        holding = false
        if (held.length > 0 && !to.destroyed) to.write(Buffer.concat(held))
        held = []
        return
      }
      holding = true
      const burst = held
      held = []
      setTimeout(() => {
        if (!to.destroyed) to.write(Buffer.concat(burst))
        hold()
      }, latency.minMs + Math.random() * (latency.maxMs - latency.minMs))
    }
    return (chunk) => {
      if (!proxy.latency && !holding) {
        to.write(chunk)
        return
      }
      held.push(chunk)
      if (!holding) hold()
    }
  }
  const roundTrips: number[] = []
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = createConnection(target)
    sockets.add(client).add(upstream)
    let answered = true
    const toRedis = delayed(upstream)
    const back = delayed(client)
    client.on('data', (chunk) => {
      if (answered) roundTrips.push(performance.now())
      answered = false
      toRedis(chunk)
    })
    upstream.on('data', (chunk) => {
      answered = true
      back(chunk)
    })
    const end = (): void => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('close', end).on('error', end)
    upstream.on('close', end).on('error', end)
  })
  const proxy: RedisProxy = {
    url: '',
    roundTrips,
    latency: undefined,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `redis://127.0.0.1:${(server.address() as AddressInfo).port}`
  return proxy
}
