import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { InboundMessage } from './inbound.ts'
import type { Mailbox } from './mailbox.ts'

// Takes phones with mail, one lease at a time per phone across every instance, and runs their messages in
// arrival order. A few loops run side by side so that one slow conversation does not hold up the others.

export interface WorkerOptions {
  concurrency?: number
  /** How often an idle loop looks for mail that another instance accepted. */
  pollMs?: number
  leaseMs?: number
}

export class ChatWorker {
  private readonly owner = randomUUID()
  private running = false
  private loops: Array<Promise<void>> = []
  private wakers: Array<() => void> = []
  private readonly drained = new Set<() => void>()
  private readonly concurrency: number
  private readonly pollMs: number
  private readonly leaseMs: number

  constructor (
    private readonly mailbox: Mailbox,
    private readonly handle: (message: InboundMessage) => Promise<void>,
    private readonly log: FastifyBaseLogger,
    options: WorkerOptions = {}
  ) {
    this.concurrency = options.concurrency ?? 4
    this.pollMs = options.pollMs ?? 100
    this.leaseMs = options.leaseMs ?? 30_000
  }

  start (): void {
    if (this.running) return
    this.running = true
    this.loops = Array.from({ length: this.concurrency }, () => this.loop())
  }

  /** Lets the loops finish the message in hand, then returns; no timer is left behind. */
  async stop (): Promise<void> {
    this.running = false
    this.wake()
    await Promise.all(this.loops)
    this.loops = []
  }

  /** New mail was accepted here: look now rather than at the next poll. */
  wake (): void {
    const wakers = this.wakers
    this.wakers = []
    for (const w of wakers) w()
  }

  /** Resolves once a phone has no mail waiting or in progress, on any instance. */
  async idle (phone: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (await this.mailbox.pending(phone)) {
      if (Date.now() > deadline) throw new Error(`chat mailbox of ${phone} still busy after ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        const done = () => { clearTimeout(timer); this.drained.delete(done); resolve() }
        const timer = setTimeout(done, 20)
        this.drained.add(done)
      })
    }
  }

  private async pause (): Promise<void> {
    await new Promise<void>((resolve) => {
      const done = () => { clearTimeout(timer); resolve() }
      const timer = setTimeout(() => { this.wakers = this.wakers.filter((w) => w !== done); resolve() }, this.pollMs)
      this.wakers.push(done)
    })
  }

  private async loop (): Promise<void> {
    while (this.running) {
      let phone: string | undefined
      try {
        phone = await this.mailbox.claim(this.owner, this.leaseMs)
      } catch (err) {
        this.log.error({ err: { message: (err as Error).message } }, 'chat worker cannot reach the mailbox')
      }
      if (phone) await this.drain(phone)
      else if (this.running) await this.pause()
    }
  }

  private async drain (phone: string): Promise<void> {
    // keep the lease while a long turn runs
    const renewal = setInterval(() => {
      this.mailbox.renew(phone, this.owner, this.leaseMs).catch(() => {})
    }, Math.max(1_000, this.leaseMs / 3))
    try {
      while (this.running) {
        const raw = await this.mailbox.head(phone)
        if (raw !== undefined) await this.run(raw)
        const next = await this.mailbox.ack(phone, this.owner, this.leaseMs)
        if (next !== 'more') break
      }
      if (!this.running) await this.mailbox.release(phone, this.owner)
    } catch (err) {
      // the mailbox is unreachable: the lease runs out and the message is taken again
      this.log.error({ err: { message: (err as Error).message } }, 'chat worker lost the mailbox mid-turn')
    } finally {
      clearInterval(renewal)
      for (const done of [...this.drained]) done()
    }
  }

  /** A turn that fails is logged and dropped: it must not block the phone's later messages. */
  private async run (raw: string): Promise<void> {
    try {
      await this.handle(JSON.parse(raw) as InboundMessage)
    } catch (err) {
      this.log.error({ err }, 'chat turn failed')
    }
  }
}
