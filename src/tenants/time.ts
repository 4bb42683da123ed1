// A club's calendar: days and times in its IANA time zone. Pure (Intl only), so every domain computes the same day.

const IANA_NAME = /^(?:UTC|[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)+)$/

let listed: Map<string, string> | undefined
// Every read of a club record checks its zone, and ICU's check (building a format) is the costly part: answers
// are kept per name. Bounded, because names also come from requests; a full cache starts over.
const answers = new Map<string, string | undefined>()
const MAX_ANSWERS = 1_000

/**
 * The zone's IANA name in its usual spelling, or undefined when it is not an IANA zone. Intl's own resolved
 * name is not used: ICU answers legacy aliases (America/Buenos_Aires for America/Argentina/Buenos_Aires).
 */
export function canonicalTimeZone (name: string): string | undefined {
  // Offsets ("+03:00", "GMT-3") and abbreviations ("ART") are not IANA names even where Intl accepts them.
  if (!IANA_NAME.test(name)) return undefined
  if (answers.has(name)) return answers.get(name)
  if (answers.size >= MAX_ANSWERS) answers.clear()
  const answer = checkedZone(name)
  answers.set(name, answer)
  return answer
}

function checkedZone (name: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name }).format(0)
  } catch {
    return undefined
  }
  listed ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]))
  const known = listed.get(name.toLowerCase())
  if (known) return known
  // Names ICU knows only by an alias (Asia/Kolkata): kept as written, or capitalised when written all in lower case.
  return name === name.toLowerCase() ? name.replace(/(^|[/_-])([a-z])/g, (_m, sep: string, c: string) => sep + c.toUpperCase()) : name
}

const formats = new Map<string, Intl.DateTimeFormat>()

function partsIn (ms: number, timeZone: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number> {
  let format = formats.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit'
    })
    formats.set(timeZone, format)
  }
  const out = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }
  for (const p of format.formatToParts(new Date(ms))) if (p.type in out) out[p.type as keyof typeof out] = Number(p.value)
  return out
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/** The calendar day (YYYY-MM-DD) of an instant in the zone. */
export function zonedDay (ms: number, timeZone: string): string {
  const p = partsIn(ms, timeZone)
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`
}

/** The wall-clock time (HH:MM) of an instant in the zone. */
export function zonedTime (ms: number, timeZone: string): string {
  const p = partsIn(ms, timeZone)
  return `${pad(p.hour)}:${pad(p.minute)}`
}

/** How far the zone's wall clock is ahead of UTC at an instant, in ms. */
function offsetAt (ms: number, timeZone: string): number {
  const p = partsIn(ms, timeZone)
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000
}

/** The instant a day (YYYY-MM-DD) starts in the zone, in ms. */
export function zonedDayStartMs (day: string, timeZone: string): number {
  const midnightUtc = Date.parse(`${day}T00:00:00.000Z`)
  const guess = midnightUtc - offsetAt(midnightUtc, timeZone)
  // A second pass corrects for an offset change (daylight saving) between the guess and the answer.
  return midnightUtc - offsetAt(guess, timeZone)
}
