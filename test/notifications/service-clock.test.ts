import { describe, expect, it } from 'vitest'
import { MemoryLiveHub } from '../../src/notifications/live.ts'
import { NotificationService } from '../../src/notifications/service.ts'
import { MemoryNotificationStore } from '../../src/notifications/store/memory.ts'

// A role notice that expires while a member's read is copying it must not fail that read.
describe('broadcast delivery and the clock', () => {
  it('copies a broadcast found live even when it expires during the delivery', async () => {
    const t0 = Date.parse('2026-11-21T12:00:00Z')
    // each read of the clock moves it on: first while the broadcast is found, then past its expiry
    let ticks = [t0, t0 + 5]
    const service = new NotificationService({
      store: new MemoryNotificationStore(), live: new MemoryLiveHub(), now: () => ticks.shift() ?? t0 + 20, onPushError: () => {}
    })
    await service.broadcast({
      tenantId: 'club-norte',
      recipientRole: 'member',
      domain: 'system',
      event: 'club.closed',
      title: 'Cerrado hoy',
      body: 'El club abre mañana.',
      severity: 'info',
      source: 'manual',
      expiresAt: new Date(t0 + 10).toISOString(),
    })
    const reader = { tenantId: 'club-norte', recipientId: 'cus_ana', role: 'member' }
    await expect(service.deliverBroadcasts(reader)).resolves.toBeUndefined()
    ticks = [t0 + 6, t0 + 6]
    const [copy] = (await service.list(reader, { offset: 0, limit: 20 })).notifications
    expect(copy?.event).toBe('club.closed')
  })
})
