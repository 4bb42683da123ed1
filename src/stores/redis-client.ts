import type { Socket } from 'node:net'
import { Redis, type Cluster, type Command } from 'ioredis'

/** One Redis or a Redis Cluster: both take the same commands, scripts (defineScript) and pub/sub. */
export type RedisClient = Redis | Cluster

type WriteableStream = Parameters<Redis['sendCommand']>[1]

/**
 * One Redis whose commands issued in the same turn of the event loop go out in one socket write, with one batch
 * unanswered at a time: ioredis' auto-pipelining, without what it costs each command (a Pipeline object per batch,
 * the command built twice, three more promises and a callback per command: about half of a script call's CPU in
 * the client, docs/performance.md). Each command is written as it is issued, so commands run in the order they
 * were issued whoever sends them (scripts, plain commands, a MULTI), onto a corked socket uncorked on the next
 * turn of the loop, or, while the batch before is unanswered, once its last command is answered (a connection
 * answers in order). A command issued while the client is not ready is left to ioredis (its offline queue, or its
 * hand-shake written at once), as is all of a lost connection's recovery: its commands are ioredis' own.
 */
export class BatchingRedis extends Redis {
  /** The socket corked with the commands of this batch, and the last of them. */
  private held: Socket | undefined
  private last: Command | undefined
  /** The socket whose last batch is unanswered. */
  private awaited: Socket | undefined
  private scheduled = false

  override sendCommand (command: Command, stream?: WriteableStream): unknown {
    const socket = this.stream as Socket | undefined
    if (this.status === 'ready' && socket?.writable === true) {
      if (this.held !== socket) {
        socket.cork()
        this.held = socket
        this.schedule()
      }
      this.last = command
    }
    return super.sendCommand(command, stream)
  }

  private schedule (): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(this.onTick)
  }

  private readonly onTick = (): void => {
    this.scheduled = false
    // a batch waits for the one before it on the same socket (a new socket has none: the old one's is ioredis')
    if (this.awaited !== this.held) this.flush()
  }

  private flush (): void {
    const socket = this.held
    const last = this.last
    if (socket === undefined || last === undefined) return
    this.held = undefined
    this.last = undefined
    this.awaited = socket
    socket.uncork()
    const answered = (): void => {
      if (this.awaited !== socket) return
      this.awaited = undefined
      // what waited goes with what the answers' continuations and this turn's other callbacks issue
      if (this.held !== undefined) this.schedule()
    }
    last.promise.then(answered, answered)
  }
}
