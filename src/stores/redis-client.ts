import type { Cluster, Redis } from 'ioredis'

/** One Redis or a Redis Cluster: both take the same commands, scripts (defineScript) and pub/sub. */
export type RedisClient = Redis | Cluster
