import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { buildApp, type BuiltApp } from '../../src/app.ts'
import { createRedis } from '../../src/plugins/redis.ts'
import type { RedisClient } from '../../src/stores/redis-client.ts'
import { DEMO_PASSWORD } from '../../src/tenants/demo.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { openSse, type SseClient } from '../notifications/sse-client.ts'

// Issue 25, items 1 and 2: a staff change takes effect on the next request, on every instance, and ends the live
// streams the old token opened; a stream also ends at its token's expiry. Two instances on one Redis, real logins
// through the embedded commerce backend, streams over real sockets.

const claims = (token: string): { exp: number } => JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { exp: number }

describe('a staff change takes effect on the next request, and ends the streams its old token opened', () => {
  let t: TestApp
  let other: BuiltApp
  let otherRedis: RedisClient
  let base: string
  const streams: SseClient[] = []
  const bearer = (token: string, tenant = 'club-norte') => ({ authorization: `Bearer ${token}`, 'tenant-id': tenant })
  const login = async (email: string, password: string): Promise<string> => {
    const res = await t.app.inject({ method: 'POST', url: '/auth/user/emailpass', payload: { email, password } })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().token as string
  }
  /** A staff member of club-norte with a password, logged in: their id and token. */
  const hire = async (email: string, role: 'admin' | 'grower', by: string): Promise<{ id: string, token: string }> => {
    const invited = await t.app.inject({ method: 'POST', url: '/api/staff', headers: bearer(by), payload: { email, name: 'Hired', role } })
    expect(invited.statusCode, invited.body).toBe(201)
    const accepted = await t.app.inject({
      method: 'POST', url: '/api/staff/invites/accept', payload: { token: invited.json().token, password: `${role}-password` }
    })
    expect(accepted.statusCode, accepted.body).toBe(201)
    return { id: accepted.json().staff.id, token: await login(email, `${role}-password`) }
  }
  const open = async (path: string, token: string): Promise<SseClient> => {
    const client = await openSse(`${base}${path}`, bearer(token))
    streams.push(client)
    expect(client.status).toBe(200)
    return client
  }

  beforeAll(async () => {
    t = await buildTestApp()
    // a second instance on the same Redis and key prefix
    otherRedis = createRedis(inject('redisUrl'), t.config.redisKeyPrefix)
    await otherRedis.connect()
    other = await buildApp(t.config, { redis: otherRedis, logger: false })
    await other.ready()
    base = await t.app.listen({ port: 0, host: '127.0.0.1' })
  })
  afterAll(async () => {
    for (const s of streams) s.close()
    await other.close()
    otherRedis.disconnect()
    await t.close()
  })

  it('a removed admin\'s token is refused on the next request, on either instance, and can no longer invite', async () => {
    const admin = await login('admin@club-norte.test', DEMO_PASSWORD)
    const eva = await hire('eva@club-norte.test', 'admin', admin)
    expect((await other.inject({ url: '/api/staff', headers: bearer(eva.token) })).statusCode).toBe(200)

    expect((await t.app.inject({ method: 'DELETE', url: `/api/staff/${eva.id}`, headers: bearer(admin) })).statusCode).toBe(204)
    for (const app of [t.app, other]) {
      const listed = await app.inject({ url: '/api/staff', headers: bearer(eva.token) })
      expect([listed.statusCode, listed.json().error.code]).toEqual([401, 'INVALID_TOKEN'])
      const invite = await app.inject({
        method: 'POST', url: '/api/staff', headers: bearer(eva.token), payload: { email: 'mole@club-norte.test', name: 'Mole', role: 'admin' }
      })
      expect(invite.statusCode).toBe(401)
    }
    expect((await t.app.inject({ url: '/api/staff', headers: bearer(admin) })).json().staff.map((s: { email: string }) => s.email)).not.toContain(
      'mole@club-norte.test'
    )
  })

  it('a demoted admin\'s old token can neither promote itself back nor demote who demoted it; a new login is a grower', async () => {
    const admin = await login('admin@club-norte.test', DEMO_PASSWORD)
    const fede = await hire('fede@club-norte.test', 'admin', admin)
    const demoted = await other.inject({ method: 'PATCH', url: `/api/staff/${fede.id}`, headers: bearer(admin), payload: { role: 'grower' } })
    expect(demoted.statusCode).toBe(200)
    const back = await t.app.inject({ method: 'PATCH', url: `/api/staff/${fede.id}`, headers: bearer(fede.token), payload: { role: 'admin' } })
    expect(back.statusCode).toBe(401)
    const revenge = await t.app.inject({ method: 'PATCH', url: '/api/staff/user_admin_norte', headers: bearer(fede.token), payload: { role: 'grower' } })
    expect(revenge.statusCode).toBe(401)
    const staff = (await t.app.inject({ url: '/api/staff', headers: bearer(admin) })).json().staff as Array<{ id: string, role: string }>
    expect(staff.find((s) => s.id === fede.id)?.role).toBe('grower')
    expect(staff.find((s) => s.id === 'user_admin_norte')?.role).toBe('admin')
    // the admin who changed nothing keeps working; the demoted one logs in again as a grower
    const again = await login('fede@club-norte.test', 'admin-password')
    expect((await t.app.inject({ url: '/api/staff', headers: bearer(again) })).statusCode).toBe(403)
    expect((await t.app.inject({ url: '/api/crops', headers: bearer(again) })).statusCode).toBe(200)
  })

  it('a removed grower\'s streams (conversations, notifications) end within a second, with the reason before the close', async () => {
    const admin = await login('admin@club-norte.test', DEMO_PASSWORD)
    const gil = await hire('gil@club-norte.test', 'grower', admin)
    const chat = await open('/api/chat/conversations/stream', gil.token)
    const notices = await open('/api/notifications/stream', gil.token)
    await notices.waitFor((e) => e.event === 'unread-count')
    // removed through the other instance: the streams live on this one
    const removedAt = Date.now()
    expect((await other.inject({ method: 'DELETE', url: `/api/staff/${gil.id}`, headers: bearer(admin) })).statusCode).toBe(204)
    for (const stream of [chat, notices]) {
      const closedAt = await stream.ended
      expect(closedAt - removedAt).toBeLessThan(1000)
      expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { reason: 'access-revoked' } })
    }
  })

  it('a demoted admin\'s stream ends within a second too', async () => {
    const admin = await login('admin@club-norte.test', DEMO_PASSWORD)
    const hana = await hire('hana@club-norte.test', 'admin', admin)
    const chat = await open('/api/chat/conversations/stream', hana.token)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const changedAt = Date.now()
    expect((await t.app.inject({ method: 'PATCH', url: `/api/staff/${hana.id}`, headers: bearer(admin), payload: { role: 'grower' } })).statusCode).toBe(200)
    expect(await chat.ended - changedAt).toBeLessThan(1000)
    expect(chat.events.at(-1)).toMatchObject({ event: 'end', data: { reason: 'access-revoked' } })
  })

  it('every stream ends within a second of its token\'s expiry, saying so', async () => {
    const grower = await t.token('grower', ['club-norte'], { expiresIn: 2 })
    const member = await t.token('member', ['club-norte'], { sub: 'cus_ana', expiresIn: 2 })
    const opened = [await open('/api/chat/conversations/stream', grower), await open('/api/notifications/stream', member)]
    for (const [stream, token] of [[opened[0], grower], [opened[1], member]] as const) {
      const closedAt = await (stream as SseClient).ended
      const expiry = claims(token).exp * 1000
      expect(closedAt - expiry).toBeGreaterThanOrEqual(-50)
      expect(closedAt - expiry).toBeLessThan(1000)
      expect((stream as SseClient).events.at(-1)).toMatchObject({ event: 'end', data: { reason: 'token-expired' } })
    }
  })
})
