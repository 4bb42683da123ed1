import { screen, type FlowResponse } from '../types.ts'

/** The flow finished (action COMPLETE): SUCCESS, echoing the names the form carries, with no further work. */
export function onComplete (data: unknown): FlowResponse {
  const given = typeof data === 'object' && data !== null ? data as Record<string, unknown> : {}
  const text = (value: unknown): string => typeof value === 'string' ? value : ''
  return screen('SUCCESS', { member_name: text(given.member_name), club_name: text(given.club_name) })
}
