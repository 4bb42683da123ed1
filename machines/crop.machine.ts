import { assign, setup, transition } from 'xstate'

// The crop lifecycle (the API's Crop status and its full lifecycle). The one source of the transition rules:
// the service asks this machine, it never keeps a table of its own. Pure: no I/O, no imports from src/.

/** Bump when a state is renamed or removed, so a stored crop of an older machine is migrated, not misread. */
export const CROP_MACHINE_VERSION = 1

/** The nine statuses in lifecycle order. */
export const allStatuses = [
  'IDEATING',
  'PROPAGATING',
  'VEGETATING',
  'FLOWERING',
  'HARVESTING',
  'DRYING',
  'MANICURING',
  'CURING',
  'FINISHED',
] as const

export type CropStatus = typeof allStatuses[number]

/** `end` is '' while the status is current. */
export interface StatusHistoryEntry {
  status: CropStatus
  start: string
  end: string
}

export interface CropContext {
  statusHistory: StatusHistoryEntry[]
}

/** A move through the status route: one event type per target, so the config reads as the table. */
type MoveEvent = { type: `MOVE.${CropStatus}`, at: string }
/** A harvest: to DRYING, or back to (or staying in) FLOWERING with continueFlowering. */
type HarvestEvent = { type: 'HARVEST', at: string, continueFlowering: boolean }
export type CropEvent = MoveEvent | HarvestEvent

const enter = (status: CropStatus) => ({ type: 'enterStatus' as const, params: { status } })

export const cropMachine = setup({
  types: {
    context: {} as CropContext,
    events: {} as CropEvent,
    input: {} as { at: string },
  },
  actions: {
    // Closes the open entry and opens one for the status entered. A clock that went backwards must not
    // make an entry end before it started, so the moment never precedes the open entry's start.
    enterStatus: assign(({ context, event }, params: { status: CropStatus }) => ({
      statusHistory: enterHistory(context.statusHistory, params.status, event.at),
    })),
  },
  guards: {
    continueFlowering: ({ event }) => event.type === 'HARVEST' && event.continueFlowering,
  },
}).createMachine({
  id: 'crop',
  initial: 'IDEATING',
  // A crop made by starting the machine opens its history at `input.at`; IDEATING's entry then finds it open.
  context: ({ input }) => ({ statusHistory: startHistory('IDEATING', input.at) }),
  states: {
    IDEATING: {
      entry: enter('IDEATING'),
      on: { 'MOVE.PROPAGATING': { target: 'PROPAGATING' }, 'MOVE.VEGETATING': { target: 'VEGETATING' } },
    },
    PROPAGATING: {
      entry: enter('PROPAGATING'),
      on: { 'MOVE.VEGETATING': { target: 'VEGETATING' } },
    },
    VEGETATING: {
      entry: enter('VEGETATING'),
      on: { 'MOVE.FLOWERING': { target: 'FLOWERING' } },
    },
    FLOWERING: {
      entry: enter('FLOWERING'),
      on: {
        'MOVE.HARVESTING': { target: 'HARVESTING' },
        HARVEST: [{ guard: 'continueFlowering', target: 'FLOWERING' }, { target: 'DRYING' }],
      },
    },
    HARVESTING: {
      entry: enter('HARVESTING'),
      on: {
        'MOVE.DRYING': { target: 'DRYING' },
        HARVEST: [{ guard: 'continueFlowering', target: 'FLOWERING' }, { target: 'DRYING' }],
      },
    },
    DRYING: {
      entry: enter('DRYING'),
      tags: ['frozen'],
      on: { 'MOVE.MANICURING': { target: 'MANICURING' }, 'MOVE.CURING': { target: 'CURING' } },
    },
    MANICURING: {
      entry: enter('MANICURING'),
      tags: ['frozen'],
      on: { 'MOVE.CURING': { target: 'CURING' } },
    },
    CURING: {
      entry: enter('CURING'),
      tags: ['frozen'],
      on: { 'MOVE.FINISHED': { target: 'FINISHED' } },
    },
    FINISHED: {
      entry: enter('FINISHED'),
      tags: ['frozen'],
      type: 'final',
    },
  },
})

/**
 * Pure history step: close the open entry at `at` (never before its start) and open one for `status`.
 * Entering the status that is already open changes nothing.
 */
function enterHistory (history: readonly StatusHistoryEntry[], status: CropStatus, at: string): StatusHistoryEntry[] {
  const open = history.at(-1)
  if (open?.status === status && open.end === '') return [...history]
  const moment = open && Date.parse(at) < Date.parse(open.start) ? open.start : at
  const closed = history.map((entry) => entry.end === '' ? { ...entry, end: moment } : entry)
  return [...closed, { status, start: moment, end: '' }]
}

/** The history of a crop that starts its life in `status` at `at`. */
export function startHistory (status: CropStatus, at: string): StatusHistoryEntry[] {
  return enterHistory([], status, at)
}

const moveEvent = (to: CropStatus, at: string): MoveEvent => ({ type: `MOVE.${to}`, at })

function restore (status: CropStatus, statusHistory: StatusHistoryEntry[] = []) {
  return cropMachine.resolveState({ value: status, context: { statusHistory } })
}

export interface CropLifecycle {
  status: CropStatus
  statusHistory: StatusHistoryEntry[]
}

function step (from: CropLifecycle, event: CropEvent): CropLifecycle | undefined {
  const snapshot = restore(from.status, from.statusHistory)
  if (!snapshot.can(event)) return undefined
  const [next] = transition(cropMachine, snapshot, event)
  return { status: next.value as CropStatus, statusHistory: next.context.statusHistory }
}

/** The status route's move; undefined when the machine does not allow it. */
export function moveStatus (from: CropLifecycle, to: CropStatus, at: string): CropLifecycle | undefined {
  return step(from, moveEvent(to, at))
}

/** The harvest route's move; undefined when the crop cannot be harvested in its status. */
export function harvestMove (from: CropLifecycle, continueFlowering: boolean, at: string): CropLifecycle | undefined {
  return step(from, { type: 'HARVEST', at, continueFlowering })
}

const EPOCH = new Date(0).toISOString()

/** Targets reachable from `status` through the status route, in lifecycle order. */
export function validTransitions (status: CropStatus): CropStatus[] {
  const snapshot = restore(status)
  return allStatuses.filter((to) => snapshot.can(moveEvent(to, EPOCH)))
}

/** No new plants from DRYING on. */
export function isFrozen (status: CropStatus): boolean {
  return restore(status).hasTag('frozen')
}

/** FINISHED is the one final status; every other crop counts against the plan's active-crop limit. */
export function isActive (status: CropStatus): boolean {
  return restore(status).status !== 'done'
}

/** Statuses in which the harvest route is accepted. */
export function canHarvest (status: CropStatus): boolean {
  return restore(status).can({ type: 'HARVEST', at: EPOCH, continueFlowering: false })
}

export const frozenStatuses: readonly CropStatus[] = allStatuses.filter(isFrozen)
export const harvestableStatuses: readonly CropStatus[] = allStatuses.filter(canHarvest)
