// Plant codes: a prefix and a zero-padded number (P-001). Pure, so the rules are tested on their own.

const WIDTH = 3

export function plantCode (prefix: string, n: number): string {
  return `${prefix}${String(n).padStart(WIDTH, '0')}`
}

/** `count` consecutive codes from `start`. */
export function plantCodes (prefix: string, start: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => plantCode(prefix, start + i))
}

/** The number after the highest one already used with `prefix` (1 when none), so a default batch never collides. */
export function nextPlantNumber (codes: readonly string[], prefix: string): number {
  let highest = 0
  for (const code of codes) {
    if (!code.startsWith(prefix)) continue
    const rest = code.slice(prefix.length)
    if (/^\d+$/.test(rest)) highest = Math.max(highest, Number(rest))
  }
  return highest + 1
}
