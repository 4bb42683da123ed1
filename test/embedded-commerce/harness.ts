import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildCommerceBackend } from '../../src/embedded-commerce/backend.ts'
import { testRedis, TEST_SECRETS } from '../helper.ts'

export type StoreKind = 'redis' | 'memory'

export interface Answer {
  status: number
  body: any
  text: string
}

export interface Backend {
  url: string
  app: FastifyInstance
  call: (method: string, path: string, options?: { body?: unknown, headers?: Record<string, string> }) => Promise<Answer>
  /** Headers of a logged-in customer or user (demo password). */
  login: (actor: 'customer' | 'user', email: string) => Promise<Record<string, string>>
  close: () => Promise<void>
}

export const PK_NORTE = { 'x-publishable-api-key': 'pk_club_norte' }
export const PK_SUR = { 'x-publishable-api-key': 'pk_club_sur' }

/** The backend with the demo data, listening on a loopback port, on a real Redis (own key prefix) or memory. */
export async function startBackend (store: StoreKind): Promise<Backend> {
  const r = store === 'redis' ? await testRedis() : undefined
  const app = await buildCommerceBackend({ redis: r?.redis ?? null, jwtSecret: TEST_SECRETS.JWT_SECRET, seed: true })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const call: Backend['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) })
    const text = await res.text()
    let body: unknown
    try { body = JSON.parse(text) } catch { body = undefined }
    return { status: res.status, body, text }
  }
  return {
    url,
    app,
    call,
    login: async (actor, email) => {
      const res = await call('POST', `/auth/${actor}/emailpass`, { body: { email, password: 'demo-password' } })
      if (res.status !== 200) throw new Error(`login ${email}: ${res.text}`)
      return { authorization: `Bearer ${res.body.token}` }
    },
    close: async () => {
      await app.close()
      await r?.cleanup()
    },
  }
}

/** A backend with ana (member) and the club-norte admin logged in: what each flow test starts from. */
export async function startWithLogins (store: StoreKind): Promise<{ b: Backend, ana: Record<string, string>, admin: Record<string, string> }> {
  const b = await startBackend(store)
  return { b, ana: await b.login('customer', 'ana@example.com'), admin: await b.login('user', 'admin@club-norte.test') }
}
