/** Spec, Limits: the reminder job runs daily at 09:00 UTC. */
const REMINDERS_HOUR_UTC = 9

/** Milliseconds from `now` to the next `hour`:00 UTC (a full day when it is exactly that time). */
export function msUntilNext (now: number, hour = REMINDERS_HOUR_UTC): number {
  const d = new Date(now)
  let next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), hour)
  if (next <= now) next += 86_400_000
  return next - now
}

/** Calls `job` every day at `hour` UTC until stopped. The timer does not keep the process alive. */
export function scheduleDaily (job: () => Promise<unknown>, onError: (err: unknown) => void, options: { hour?: number, now?: () => number } = {}): {
  stop: () => void
} {
  const now = options.now ?? Date.now
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const arm = (): void => {
    timer = setTimeout(() => {
      job().catch(onError).finally(() => { if (!stopped) arm() })
    }, msUntilNext(now(), options.hour))
    timer.unref()
  }
  arm()
  return {
    stop: () => {
      stopped = true
      clearTimeout(timer)
    },
  }
}
