import { readFileSync } from 'node:fs'

/** A raw answer of a real Medusa 2.21 server (copied from reference/medusa-v2/samples). */
export function sample (name: string): any {
  return JSON.parse(readFileSync(new URL(`./samples/${name}.json`, import.meta.url), 'utf8'))
}
