import { describe, expect, it } from 'vitest'
import { moveStatus } from '../../machines/crop.machine.ts'
import { cropStats } from '../../src/crops/views.ts'
import { cropRecord } from './fixtures.ts'

const day = 86_400_000
const at = (iso: string) => new Date(iso)

describe('crop stats', () => {
  const base = cropRecord('t', { status: 'VEGETATING', plantedAt: '2024-01-01T00:00:00.000Z' })
  const moved = moveStatus(base, 'FLOWERING', '2024-02-01T12:00:00.000Z')
  const crop = { ...base, ...moved }

  it('counts whole days in the current status and since planting', () => {
    const now = at('2024-02-11T11:59:59.000Z')
    expect(cropStats(crop, now)).toMatchObject({ daysInCurrentStatus: 9, totalDaysFromSeed: 41 })
    expect(cropStats(crop, new Date(now.getTime() + 1000))).toMatchObject({ daysInCurrentStatus: 10 })
  })

  it('never counts negative days (a planting date in the future)', () => {
    expect(cropStats({ ...crop, plantedAt: '2030-01-01T00:00:00.000Z' }, at('2024-03-01T00:00:00.000Z')).totalDaysFromSeed).toBe(0)
  })

  it('counts entries by type and sums dry weights of harvests, missing ones as 0', () => {
    const entry = (type: 'WATERING' | 'FERTILIZATION' | 'OBSERVATION') => ({
      type, date: '2024-01-02T00:00:00.000Z', data: {}, notes: '', evidences: [], author: { id: 'u', name: 'U' }
    })
    const harvest = (dryWeight: number | null) => ({
      id: 'h',
      cropId: crop.id,
      name: 'h',
      status: 'DRYING' as const,
      wetWeight: 500,
      dryWeight,
      quality: null,
      batchNumber: 'B',
      moisture: null,
      notes: '',
      storageLocation: null,
      createdAt: '',
      updatedAt: '',
    })
    const stats = cropStats({
      ...crop,
      timeline: [entry('WATERING'), entry('WATERING'), entry('FERTILIZATION'), entry('OBSERVATION')],
      harvests: [harvest(0.1), harvest(0.2), harvest(null)],
    }, new Date(Date.parse(crop.plantedAt) + 3 * day))
    expect(stats).toMatchObject({ totalTimelineEntries: 4, wateringCount: 2, fertilizationCount: 1, totalHarvests: 3, totalDryWeight: 0.3 })
  })
})
