import type { Role } from '../../src/tenants/roles.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'

export interface Reply {
  status: number
  body: any
}

/** A caller of the crops API with one role in one club. */
export type Call = (method: Method, url: string, payload?: unknown) => Promise<Reply>

export async function cropsApp (store: 'redis' | 'memory'): Promise<TestApp> {
  // Route tests make many calls from one address; the rate limit has its own tests.
  return await buildTestApp({ store, env: { RATE_LIMIT_MAX: '1000000' } })
}

export function caller (t: TestApp, headers: Record<string, string>): Call {
  return async (method, url, payload) => {
    const res = await t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) })
    return { status: res.statusCode, body: res.body ? res.json() : undefined }
  }
}

export async function as (t: TestApp, role: Role, tenant = 'club-norte'): Promise<Call> {
  return caller(t, await t.auth(role, tenant))
}

/** Creates a crop and returns its id; fails the test loudly when the API refuses. */
export async function newCrop (call: Call, body: Record<string, unknown> = {}): Promise<string> {
  const res = await call('POST', '/api/crops', { name: 'Test crop', strain: 'strain_norte_gelato', ...body })
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.crop.id
}

/** Walks a crop through the status route. */
export async function moveTo (call: Call, cropId: string, ...statuses: string[]): Promise<void> {
  for (const newStatus of statuses) {
    const res = await call('POST', `/api/crops/${cropId}/status`, { newStatus })
    if (res.status !== 200) throw new Error(`move to ${newStatus} failed: ${res.status} ${JSON.stringify(res.body)}`)
  }
}
