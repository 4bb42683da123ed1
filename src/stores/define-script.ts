import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { RedisClient } from './redis-client.ts'

// One way to declare a Lua script: its name, how many keys it takes, its Lua, and the TypeScript types of its
// arguments and result. Its first call on a connection sends the Lua (EVAL, which loads it), later ones its sha
// (EVALSHA); a NOSCRIPT answer (Redis restarted, failed over or flushed its scripts under a live connection) is
// followed by one EVAL. So a store needs no set-up step, commands sent behind a script's first call on a connection
// run after it there, and a call with the wrong number of keys fails here, before Redis, instead of shifting KEYS
// into ARGV. This is what ioredis' defineCommand did, through the built-in commands instead: every auto-pipeline
// batch copied each defined command onto itself (the greetings profile's largest ioredis cost). EVAL and EVALSHA
// carry the key prefix and route on a Cluster by their keys alike.

export type ScriptArg = string | number | Buffer

export interface ScriptSpec<Result> {
  /** Unique among the service's scripts: it names the script in errors and tests. */
  name: string
  /** How many keys it takes; `'list'` for a script over a list of keys (their count is sent with each call). */
  keys: number | 'list'
  lua: string
  /** Turns the raw Redis reply into the result (a parse, a count, a tuple); the raw reply when absent. */
  decode?: (raw: unknown) => Result
}

export type Script<Args extends readonly ScriptArg[], Result> =
  ((redis: RedisClient, keys: readonly string[], ...args: Args) => Promise<Result>) & { readonly spec: ScriptSpec<Result> }

const names = new Set<string>()

const isNoScript = (err: unknown): boolean => err instanceof Error && err.message.startsWith('NOSCRIPT')

export function defineScript<Args extends readonly ScriptArg[], Result> (spec: ScriptSpec<Result>): Script<Args, Result> {
  if (names.has(spec.name)) throw new Error(`a Redis script named ${spec.name} is defined twice`)
  names.add(spec.name)
  const sha = createHash('sha1').update(spec.lua).digest('hex')
  const decode = spec.decode ?? ((raw: unknown) => raw as Result)
  // the connections the Lua was sent on: a client's socket (a new one after a reconnection), or a Cluster as a whole
  const sentOn = new WeakSet<object>()
  const run = async (redis: RedisClient, keys: readonly string[], ...args: Args): Promise<Result> => {
    if (spec.keys !== 'list' && keys.length !== spec.keys) throw new Error(`script ${spec.name} takes ${spec.keys} keys, was given ${keys.length}`)
    const connection: object = redis.isCluster ? redis : (redis as Redis).stream ?? redis
    if (!sentOn.has(connection)) {
      sentOn.add(connection)
      return decode(await redis.eval(spec.lua, keys.length, ...keys, ...args))
    }
    let raw: unknown
    try {
      raw = await redis.evalsha(sha, keys.length, ...keys, ...args)
    } catch (err) {
      if (!isNoScript(err)) throw err
      raw = await redis.eval(spec.lua, keys.length, ...keys, ...args)
    }
    return decode(raw)
  }
  // the declaration stays readable beside the function (tests check a script's header and decode)
  return Object.assign(run, { spec })
}
