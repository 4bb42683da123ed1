import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { Socket } from 'node:net'
import { loadavg } from 'node:os'
import pino from 'pino'
import { Agent } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendBodyFor } from '../../src/chat/outbound/messages.ts'
import { ProviderClient } from '../../src/chat/outbound/provider-client.ts'
import { DevOutbox } from '../../src/chat/outbound/transport.ts'
import { startFakeProvider, type FakeProvider } from './support.ts'

// The send fence (src/chat/sender.ts) is asked by the transport as late as it can: right before the request's
// first byte is written, after any wait for a connection to open or come free. Said no, nothing reaches the
// provider. What is left between the fence's answer and the socket is one synchronous stretch of undici's code.

const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.floor(values.length * p)] ?? 0

describe('the send fence at the socket', () => {
  let fake: FakeProvider
  beforeAll(async () => { fake = await startFakeProvider() })
  afterAll(async () => { await fake.close() })
  const body = sendBodyFor('5491100000001', { type: 'text', text: { body: 'hola' } })
  const entry = (id: string) => ({ id, phone: '5491100000001', tenantId: undefined, at: 0, body })
  const client = (dispatcher?: Agent) => new ProviderClient({ baseUrl: fake.url, phoneNumberId: '123', apiKey: 'key', timeoutMs: 2_000, dispatcher })
  const never = new AbortController().signal

  it('a fence that says no sends nothing: not a byte reaches the provider, and the delivery says fenced', async () => {
    const before = fake.attempts
    expect(await client().deliver(entry('f:0'), never, () => false)).toEqual({ kind: 'fenced' })
    // the next send on the same client goes out as usual
    expect(await client().deliver(entry('f:1'), never, () => true)).toMatchObject({ kind: 'ok' })
    expect(fake.attempts - before).toBe(1)
    expect(fake.calls.at(-1)?.idempotencyKey).toBe('f:1')
    expect(await new DevOutbox(pino({ level: 'silent' })).deliver(entry('f:2'), never, () => false)).toEqual({ kind: 'fenced' })
  })

  it('is asked after the wait for a free connection, not when the send is called', async () => {
    // one connection: the second send waits behind the first, which the provider holds 300 ms
    const agent = new Agent({ connections: 1, pipelining: 1 })
    try {
      fake.plan.push({ status: 200, hangMs: 300 })
      const before = fake.attempts
      const started = performance.now()
      const asked: number[] = []
      const first = client(agent).deliver(entry('w:0'), never, () => true)
      // the lease would still hold when the send is called, and has run out once the connection is free
      const second = client(agent).deliver(entry('w:1'), never, () => { asked.push(performance.now() - started); return performance.now() - started < 100 })
      expect(await first).toMatchObject({ kind: 'ok' })
      expect(await second).toEqual({ kind: 'fenced' })
      expect(asked.length).toBe(1)
      expect(asked[0]).toBeGreaterThanOrEqual(250)
      expect(fake.attempts - before).toBe(1)
    } finally {
      await agent.close()
    }
  })

  it('is asked after a connection opens, in the same synchronous stretch as the socket write (no await, timer or I/O between)', async () => {
    const agent = new Agent({ connections: 4 })
    // every socket undici opens: its writes are timed against the fence's last answer
    let askedAt: bigint | undefined
    let sameStretch = false
    const gaps: number[] = []
    const stretches: boolean[] = []
    const onConnected = (message: unknown): void => {
      const socket = (message as { socket: Socket }).socket
      const write = socket.write.bind(socket) as (...args: unknown[]) => boolean
      socket.write = ((...args: unknown[]) => {
        if (askedAt !== undefined) {
          gaps.push(Number(process.hrtime.bigint() - askedAt) / 1_000)
          stretches.push(sameStretch)
          askedAt = undefined
        }
        return write(...args)
      }) as typeof socket.write
    }
    subscribe('undici:client:connected', onConnected)
    const fence = (): boolean => {
      askedAt = process.hrtime.bigint()
      sameStretch = true
      // a microtask (any await) or a later turn of the event loop ends the stretch
      queueMicrotask(() => { sameStretch = false })
      return true
    }
    try {
      for (let round = 0; round < 25; round++) {
        await Promise.all(Array.from({ length: 8 }, async (_, i) => {
          expect(await client(agent).deliver(entry(`s:${round}:${i}`), never, fence)).toMatchObject({ kind: 'ok' })
        }))
      }
    } finally {
      unsubscribe('undici:client:connected', onConnected)
      await agent.close()
    }
    expect(gaps.length).toBe(200)
    expect(stretches.every(Boolean)).toBe(true)
    process.stdout.write(`fence answer -> first socket write, 200 sends on 4 connections (load ${loadavg()[0]?.toFixed(1)}): ` +
      `p50 ${percentile(gaps, 0.5).toFixed(0)} us, p99 ${percentile(gaps, 0.99).toFixed(0)} us, max ${Math.max(...gaps).toFixed(0)} us\n`)
  })
})
