import { createHash } from 'node:crypto'
import { Command, type Redis } from 'ioredis'
import type { RedisClient } from './redis-client.ts'

// One way to declare a Lua script: its name, how many keys it takes, its Lua, and the TypeScript types of its
// arguments and result. Its first call on a connection sends the Lua (EVAL, which loads it), later ones its sha
// (EVALSHA); a NOSCRIPT answer (Redis restarted, failed over or flushed its scripts under a live connection) is
// followed by one EVAL. So a store needs no set-up step, commands sent behind a script's first call on a connection
// run after it there, and a call with the wrong number of keys fails here, before Redis, instead of shifting KEYS
// into ARGV. This is what ioredis' defineCommand did, through the built-in commands instead: every auto-pipeline
// batch copied each defined command onto itself (the greetings profile's largest ioredis cost). EVAL and EVALSHA
// carry the key prefix and route on a Cluster by their keys alike.
//
// A call is sent as a ScriptCall, built once with its arguments as Redis reads them, instead of through the client's
// `evalsha(...)`: that path copies the arguments three times (Command's `args.flat()` alone about 150 ns an
// argument), and a Buffer among them (a history record) made ioredis measure and copy every piece of the command
// into a Buffer of its own (two `byteLength` and a `write` each). Same bytes on the wire (a property holds it).

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

const NONE: string[] = []
/** What the client's own `evalsha(...)` asks of a reply: bulk strings as strings. */
const AS_STRINGS = { replyEncoding: 'utf8' } as const

/** EVAL or EVALSHA with its arguments given as sent: the script (or its sha), the key count, the prefixed keys, the rest. */
class ScriptCall extends Command {
  constructor (name: 'eval' | 'evalsha', args: Array<string | Buffer>) {
    super(name, NONE, AS_STRINGS)
    this.args = args
  }

  /** The command in Redis' protocol: one string, or one Buffer when an argument is a Buffer (strings between as UTF-8). */
  override toWritable (): string | Buffer {
    const args = this.args as Array<string | Buffer>
    let text = `*${args.length + 1}\r\n$${this.name.length}\r\n${this.name}\r\n`
    let parts: Buffer[] | undefined
    for (const arg of args) {
      if (typeof arg === 'string') {
        text += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`
      } else {
        parts ??= []
        parts.push(Buffer.from(`${text}$${arg.length}\r\n`), arg)
        text = '\r\n'
      }
    }
    if (parts === undefined) return text
    parts.push(Buffer.from(text))
    return Buffer.concat(parts)
  }
}

/** A call of the script `head` (its Lua for EVAL, its sha for EVALSHA): the keys under the client's prefix, numbers in decimal. */
export function scriptCall (name: 'eval' | 'evalsha', head: string, prefix: string, keys: readonly string[], args: readonly ScriptArg[]): ScriptCall {
  const all: Array<string | Buffer> = [head, String(keys.length)]
  for (const key of keys) all.push(prefix + key)
  for (const arg of args) all.push(typeof arg === 'number' ? String(arg) : arg)
  return new ScriptCall(name, all)
}

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
    const prefix = redis.options.keyPrefix ?? ''
    const send = async (name: 'eval' | 'evalsha'): Promise<unknown> =>
      await redis.sendCommand(scriptCall(name, name === 'eval' ? spec.lua : sha, prefix, keys, args)) as Promise<unknown>
    if (!sentOn.has(connection)) {
      sentOn.add(connection)
      return decode(await send('eval'))
    }
    let raw: unknown
    try {
      raw = await send('evalsha')
    } catch (err) {
      if (!isNoScript(err)) throw err
      raw = await send('eval')
    }
    return decode(raw)
  }
  // the declaration stays readable beside the function (tests check a script's header and decode)
  return Object.assign(run, { spec })
}
