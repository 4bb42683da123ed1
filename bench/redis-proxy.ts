import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net'

// A TCP proxy between the service and its Redis that counts sequential round trips: on each connection, a
// burst of bytes from the client counts once when the server has answered something since the client's last
// burst (commands written in one go, or pipelined before any answer came back, are one round trip; a command
// sent after waiting for an answer is another). Counted per connection and summed, so commands the client sends
// side by side on two connections count twice: an upper bound of the round trips a turn waits for.

export interface RedisProxy {
  url: string
  /** When each round trip started (performance clock, ms), oldest first. */
  roundTrips: number[]
  close: () => Promise<void>
}

export async function startRedisProxy (target: { host: string, port: number }): Promise<RedisProxy> {
  const roundTrips: number[] = []
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = createConnection(target)
    sockets.add(client).add(upstream)
    let answered = true
    client.on('data', (chunk) => {
      if (answered) roundTrips.push(performance.now())
      answered = false
      upstream.write(chunk)
    })
    upstream.on('data', (chunk) => {
      answered = true
      client.write(chunk)
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    roundTrips,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
