import type { RedisClient } from './redis-client.ts'

// One way to declare a Lua script: its name, how many keys it takes, its Lua, and the TypeScript types of its
// arguments and result. The script is loaded on a client the first time it runs there (ioredis' defineCommand:
// EVALSHA, falling back to EVAL once after a restart or failover), so a store needs no set-up step, and a call
// with the wrong number of keys fails here, before Redis, instead of shifting KEYS into ARGV.

export type ScriptArg = string | number | Buffer

export interface ScriptSpec<Result> {
  /** Unique among the service's scripts: it names the command ioredis defines on the client. */
  name: string
  /** How many keys it takes; `'list'` for a script over a list of keys (their count is sent with each call). */
  keys: number | 'list'
  lua: string
  /** Turns the raw Redis reply into the result (a parse, a count, a tuple); the raw reply when absent. */
  decode?: (raw: unknown) => Result
}

export type Script<Args extends readonly ScriptArg[], Result> =
  ((redis: RedisClient, keys: readonly string[], ...args: Args) => Promise<Result>) & { readonly spec: ScriptSpec<Result> }

type Callable = (...keysAndArgs: ScriptArg[]) => Promise<unknown>

const specs = new Map<string, ScriptSpec<unknown>>()

/**
 * Defines every script declared so far on a client that has none of them yet. An auto-pipelining client must
 * get them before its first command: a pipeline it has open copies the client's scripts when made, and a script
 * defined later is missing from it (ioredis then answers the whole batch wrongly).
 */
export function defineScriptsOn (redis: RedisClient): void {
  for (const spec of specs.values()) {
    if ((redis as unknown as Record<string, unknown>)[spec.name] !== undefined) continue
    redis.defineCommand(spec.name, spec.keys === 'list' ? { lua: spec.lua } : { numberOfKeys: spec.keys, lua: spec.lua })
  }
}

export function defineScript<Args extends readonly ScriptArg[], Result> (spec: ScriptSpec<Result>): Script<Args, Result> {
  if (specs.has(spec.name)) throw new Error(`a Redis script named ${spec.name} is defined twice`)
  specs.set(spec.name, spec)
  const decode = spec.decode ?? ((raw: unknown) => raw as Result)
  const run = async (redis: RedisClient, keys: readonly string[], ...args: Args): Promise<Result> => {
    if (spec.keys !== 'list' && keys.length !== spec.keys) throw new Error(`script ${spec.name} takes ${spec.keys} keys, was given ${keys.length}`)
    let command = (redis as unknown as Record<string, Callable | undefined>)[spec.name]
    if (!command) {
      defineScriptsOn(redis)
      command = (redis as unknown as Record<string, Callable>)[spec.name] as Callable
    }
    const count = spec.keys === 'list' ? [keys.length] : []
    return decode(await command.call(redis, ...count, ...keys, ...args))
  }
  // the declaration stays readable beside the function (tests check a script's header and decode)
  return Object.assign(run, { spec })
}
