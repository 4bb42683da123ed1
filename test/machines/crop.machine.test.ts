import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { initialTransition, transition, type AnyTransitionDefinition } from 'xstate'
import { getAdjacencyMap, getShortestPaths } from 'xstate/graph'
import {
  allStatuses,
  canHarvest,
  cropMachine,
  CROP_MACHINE_VERSION,
  harvestMove,
  isActive,
  isFrozen,
  moveStatus,
  startHistory,
  validTransitions,
  type CropEvent,
  type CropLifecycle,
  type CropStatus,
  type StatusHistoryEntry,
} from '../../machines/crop.machine.ts'

// decisions.md section 4, written out by hand so that a change of the machine has to change this test too.
const TABLE: Record<CropStatus, CropStatus[]> = {
  IDEATING: ['PROPAGATING', 'VEGETATING'],
  PROPAGATING: ['VEGETATING'],
  VEGETATING: ['FLOWERING'],
  FLOWERING: ['HARVESTING'],
  HARVESTING: ['DRYING'],
  DRYING: ['MANICURING', 'CURING'],
  MANICURING: ['CURING'],
  CURING: ['FINISHED'],
  FINISHED: [],
}
const FROZEN: CropStatus[] = ['DRYING', 'MANICURING', 'CURING', 'FINISHED']

function assertHistoryInvariants (life: CropLifecycle): void {
  const h: StatusHistoryEntry[] = life.statusHistory
  expect(h.filter((e) => e.end === '')).toHaveLength(1)
  expect(h.at(-1)).toMatchObject({ status: life.status, end: '' })
  for (const [i, e] of h.entries()) {
    expect(allStatuses).toContain(e.status)
    if (e.end !== '') expect(Date.parse(e.end)).toBeGreaterThanOrEqual(Date.parse(e.start))
    const next = h[i + 1]
    if (next) {
      expect(e.end).toBe(next.start)
      expect(Date.parse(next.start)).toBeGreaterThanOrEqual(Date.parse(e.start))
    }
  }
}

const status = fc.constantFrom(...allStatuses)
const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }).map((ms) => new Date(ms).toISOString())
const action = fc.oneof(
  fc.record({ kind: fc.constant('move' as const), to: status, at: instant }),
  fc.record({ kind: fc.constant('harvest' as const), continueFlowering: fc.boolean(), at: instant })
)

describe('crop machine', () => {
  it('has a version and the nine statuses as its states, in lifecycle order', () => {
    expect(CROP_MACHINE_VERSION).toBeGreaterThanOrEqual(1)
    expect(allStatuses).toEqual(Object.keys(TABLE))
    expect(Object.keys(cropMachine.config.states ?? {})).toEqual([...allStatuses])
  })

  it('allows exactly the moves of decisions.md through the status route', () => {
    for (const from of allStatuses) {
      expect(validTransitions(from)).toEqual(TABLE[from])
      for (const to of allStatuses) {
        const moved = moveStatus({ status: from, statusHistory: startHistory(from, '2024-01-01T00:00:00.000Z') }, to, '2024-02-01T00:00:00.000Z')
        expect(moved?.status).toBe(TABLE[from].includes(to) ? to : undefined)
      }
    }
  })

  it('marks DRYING, MANICURING, CURING and FINISHED frozen, and only FINISHED inactive', () => {
    expect(allStatuses.filter(isFrozen)).toEqual(FROZEN)
    expect(allStatuses.filter((s) => !isActive(s))).toEqual(['FINISHED'])
  })

  it('harvests only in FLOWERING and HARVESTING: to DRYING, or to FLOWERING with continueFlowering', () => {
    expect(allStatuses.filter(canHarvest)).toEqual(['FLOWERING', 'HARVESTING'])
    for (const from of allStatuses) {
      const life = { status: from, statusHistory: startHistory(from, '2024-01-01T00:00:00.000Z') }
      const at = '2024-03-01T00:00:00.000Z'
      expect(harvestMove(life, false, at)?.status).toBe(canHarvest(from) ? 'DRYING' : undefined)
      expect(harvestMove(life, true, at)?.status).toBe(canHarvest(from) ? 'FLOWERING' : undefined)
    }
  })

  it('keeps the history unchanged when a harvest continues flowering in FLOWERING', () => {
    const life: CropLifecycle = { status: 'FLOWERING', statusHistory: startHistory('FLOWERING', '2024-01-01T00:00:00.000Z') }
    expect(harvestMove(life, true, '2024-02-01T00:00:00.000Z')).toEqual(life)
  })

  it('closes the open entry at the moment of the move and opens the next one', () => {
    const life = moveStatus(
      { status: 'VEGETATING', statusHistory: startHistory('VEGETATING', '2024-01-01T00:00:00.000Z') }, 'FLOWERING', '2024-02-01T10:00:00.000Z'
    )
    expect(life?.statusHistory).toEqual([
      { status: 'VEGETATING', start: '2024-01-01T00:00:00.000Z', end: '2024-02-01T10:00:00.000Z' },
      { status: 'FLOWERING', start: '2024-02-01T10:00:00.000Z', end: '' },
    ])
  })

  it('property: random moves never leave the nine statuses, FINISHED is terminal, history invariants hold', () => {
    fc.assert(fc.property(status, instant, fc.array(action, { maxLength: 40 }), (start, at0, actions) => {
      let life: CropLifecycle = { status: start, statusHistory: startHistory(start, at0) }
      assertHistoryInvariants(life)
      for (const a of actions) {
        const next = a.kind === 'move' ? moveStatus(life, a.to, a.at) : harvestMove(life, a.continueFlowering, a.at)
        if (life.status === 'FINISHED') expect(next).toBeUndefined()
        if (a.kind === 'move' && life.status === 'FLOWERING') expect(next === undefined || next.status === 'HARVESTING').toBe(true)
        if (a.kind === 'move') expect(next !== undefined).toBe(TABLE[life.status].includes(a.to))
        if (!next) continue
        expect(allStatuses).toContain(next.status)
        // Only a real change of status adds an entry.
        expect(next.statusHistory.length).toBe(life.statusHistory.length + (next.status === life.status ? 0 : 1))
        life = next
        assertHistoryInvariants(life)
      }
    }), { numRuns: 300 })
  })

  it('property: every status is reachable from IDEATING through the status route', () => {
    const seen = new Set<CropStatus>(['IDEATING'])
    const queue: CropStatus[] = ['IDEATING']
    while (queue.length > 0) {
      const s = queue.shift() as CropStatus
      for (const to of validTransitions(s)) if (!seen.has(to)) { seen.add(to); queue.push(to) }
    }
    expect([...seen].sort()).toEqual([...allStatuses].sort())
  })

  describe('model-based', () => {
    const at = '2024-05-01T00:00:00.000Z'
    const events: CropEvent[] = [
      ...allStatuses.map((to) => ({ type: `MOVE.${to}` as const, at })),
      { type: 'HARVEST', at, continueFlowering: true },
      { type: 'HARVEST', at, continueFlowering: false },
    ]
    const traversal = { input: { at }, events, serializeState: (s: { value: unknown }) => String(s.value) }

    it('starts in IDEATING with one open history entry', () => {
      const [snapshot] = initialTransition(cropMachine, { at })
      expect(snapshot.value).toBe('IDEATING')
      expect(snapshot.context.statusHistory).toEqual([{ status: 'IDEATING', start: at, end: '' }])
    })

    it.each(allStatuses)('a path reaches %s, and replaying it gets there', (state) => {
      const path = getShortestPaths(cropMachine, traversal).find((p) => p.state.value === state)
      expect(path, `no path to ${state}`).toBeDefined()
      let [snapshot] = initialTransition(cropMachine, { at })
      for (const step of path?.steps ?? []) [snapshot] = transition(cropMachine, snapshot, step.event)
      expect(snapshot.value).toBe(state)
    })

    it('every transition written in the machine is taken from some reachable state', () => {
      const taken = new Set<AnyTransitionDefinition>()
      for (const { state, transitions } of Object.values(getAdjacencyMap(cropMachine, traversal))) {
        for (const { event } of Object.values(transitions) as Array<{ event: CropEvent }>) {
          for (const t of cropMachine.getTransitionData(state, event)) taken.add(t)
        }
      }
      const missing: string[] = []
      for (const [name, node] of Object.entries(cropMachine.root.states)) {
        for (const [eventType, list] of node.transitions) list.forEach((t, i) => { if (!taken.has(t)) missing.push(`${name} ${eventType}#${i}`) })
      }
      expect(missing).toEqual([])
    })
  })
})
