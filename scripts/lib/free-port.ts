import { createServer } from 'node:net'

/** A loopback port nobody listens on right now (for servers the tests and tools start). */
export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      srv.close(() => typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no free port')))
    })
  })
}
