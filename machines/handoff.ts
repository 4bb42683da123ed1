import { choiceId } from './conversation.choices.ts'

// Human handoff: a flag kept beside the conversation's state, never a state of the machine (its eight states
// stay as the script has them). A member asks for a person (requested, with a deadline); staff take the
// conversation over (taken, by whom) or it times out; staff hand it back. While the flag is up the bot is silent:
// the member's messages are kept in the history for staff. Pure: the store fences every change with a
// compare-and-set of the flag as it was read.

export type Handoff =
  | { status: 'requested', at: number, deadline: number }
  | { status: 'taken', by: string, at: number }

export type TakeResult = { kind: 'ok', flag: Handoff } | { kind: 'held', by: string }

/** Asking again while a person is asked for, or already there, changes nothing. */
export function requestHandoff (flag: Handoff | undefined, now: number, timeoutMs: number): Handoff {
  if (flag && !timedOut(flag, now)) return flag
  return { status: 'requested', at: now, deadline: now + timeoutMs }
}

/** Staff take over; taken by someone else is refused with the holder; taking one's own again is a no-op. */
export function takeOver (flag: Handoff | undefined, staffId: string, now: number): TakeResult {
  if (flag?.status === 'taken' && flag.by !== staffId) return { kind: 'held', by: flag.by }
  if (flag?.status === 'taken') return { kind: 'ok', flag }
  return { kind: 'ok', flag: { status: 'taken', by: staffId, at: now } }
}

/** A request nobody took before its deadline; a taken conversation stays with staff until handed back. */
export const timedOut = (flag: Handoff | undefined, now: number): boolean => flag?.status === 'requested' && flag.deadline <= now

/** The bot answers unless a person is asked for (and not timed out) or has taken over. */
export const botSilent = (flag: Handoff | undefined, now: number): boolean => flag !== undefined && !timedOut(flag, now)

/** A member is waiting for a person: flagged in the staff's list. */
export const needsPerson = (flag: Handoff | undefined, now: number): boolean => flag?.status === 'requested' && !timedOut(flag, now)

const PERSON_CHOICE = choiceId({ kind: 'menu', item: 'person' })
const WORDS = new Set(['persona', 'personas', 'person', 'people', 'humano', 'humana', 'human', 'agent', 'agente', 'operador', 'operator'])

/** Typed words that ask for a person ("quiero hablar con una persona", "agent"); case and accents do not matter. */
export function asksForPerson (text: string): boolean {
  const words = text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u)
  return words.some((w) => WORDS.has(w))
}

/** The member's input asks for a person: the menu row (chosen, or its number typed) or the words. */
export function choosesPerson (input: { kind: string, text?: string, id?: string }, options: readonly string[]): boolean {
  if (input.kind === 'reply') return input.id === PERSON_CHOICE
  if (input.kind !== 'text' || input.text === undefined) return false
  const n = /^\s*(\d{1,2})\s*$/.exec(input.text)
  return n ? options[Number(n[1]) - 1] === PERSON_CHOICE : asksForPerson(input.text)
}

export function parseHandoff (raw: string | undefined): Handoff | undefined {
  if (!raw) return undefined
  try {
    const v = JSON.parse(raw) as Partial<Handoff>
    if (v.status === 'requested' && typeof v.at === 'number' && typeof v.deadline === 'number') return { status: 'requested', at: v.at, deadline: v.deadline }
    if (v.status === 'taken' && typeof v.by === 'string' && typeof v.at === 'number') return { status: 'taken', by: v.by, at: v.at }
  } catch {}
  return undefined
}
