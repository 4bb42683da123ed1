import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'

describe('OpenAPI document', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'memory' }) })
  afterAll(async () => { await t.close() })

  it('describes the notification and content routes from their schemas', async () => {
    const doc = (await t.app.inject('/openapi.json')).json()
    for (const path of [
      '/api/notifications', '/api/notifications/unread-count', '/api/notifications/mark-read', '/api/notifications/stream',
      '/api/notifications/generate-reminders', '/api/appointments', '/api/tasks/{taskId}'
    ]) {
      expect(doc.paths).toHaveProperty([path])
    }
    const list = doc.paths['/api/notifications'].get
    expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['Tenant-id', 'domain', 'isRead', 'limit', 'page', 'source'])
  })
})
