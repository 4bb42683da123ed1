import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { startRedisServer, type RedisServer } from './redis-server.ts'

// A throwaway 3-master Redis Cluster on free loopback ports, for the test suite and the benchmarks.

const run = promisify(execFile)

export interface RedisClusterServers {
  /** `host:port` of each master, as REDIS_CLUSTER_NODES lists them. */
  nodes: string[]
  stop: () => Promise<void>
}

export async function startRedisCluster (masters = 3, timeoutMs = 20_000): Promise<RedisClusterServers> {
  const servers: RedisServer[] = []
  const stop = async (): Promise<void> => { await Promise.all(servers.map(async (s) => { await s.stop() })) }
  try {
    for (let i = 0; i < masters; i++) {
      servers.push(await startRedisServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000']))
    }
    const nodes = servers.map((s) => s.url.replace('redis://', ''))
    await createCluster(nodes, timeoutMs)
    return { nodes, stop }
  } catch (err) {
    await stop()
    throw err
  }
}

/** Joins running cluster-enabled servers (`host:port`) into one cluster of masters sharing the 16384 slots. */
export async function createCluster (nodes: readonly string[], timeoutMs = 20_000): Promise<void> {
  await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'])
  await waitForClusterOk(nodes.map((n) => `redis://${n}`), timeoutMs)
}

/** Every member answers cluster_state:ok and knows every slot's owner. */
export async function waitForClusterOk (urls: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (const url of urls) {
    const client = new Redis(url)
    try {
      while (!/cluster_state:ok/.test(await client.cluster('INFO'))) {
        if (Date.now() > deadline) throw new Error(`redis cluster member ${url} did not reach cluster_state:ok`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    } finally {
      client.disconnect()
    }
  }
}

/** Deletes every key under `prefix` on each of the cluster's masters (SCAN runs per node). */
export async function deleteClusterKeysWithPrefix (masters: readonly string[], prefix: string): Promise<void> {
  await Promise.all(masters.map(async (hostPort) => {
    const { host, port } = toNode(hostPort)
    const node = new Redis(port, host)
    try {
      let cursor = '0'
      do {
        const [next, found] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
        cursor = next
        // one DEL per key: the keys a node holds sit in many slots
        await Promise.all(found.map(async (key) => await node.del(key)))
      } while (cursor !== '0')
    } finally {
      node.disconnect()
    }
  }))
}

export const toNode = (hostPort: string): { host: string, port: number } => {
  const at = hostPort.lastIndexOf(':')
  return { host: hostPort.slice(0, at), port: Number(hostPort.slice(at + 1)) }
}
