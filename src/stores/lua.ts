import { readFileSync } from 'node:fs'

// The one loader of the service's Lua files. A script is `<dir>/<name>.lua`; a line `--- @include "<piece>"`
// (BullMQ's form) is replaced by `<dir>/includes/<piece>.lua`, itself expanded first. A piece is pulled in once
// per script, where it is first named (a piece that includes `now` and a script that does too get one `now`), and
// a piece that comes back to itself is refused, naming the chain. The files are read once, at start-up: `npm run
// build` copies them beside the compiled code (dist/src/...), so the same URL finds them from src/ and from dist/.

const INCLUDE = /^--- @include "([\w-]+)"[ \t]*(?:\n|$)/gm

/** The script `name` in `dir` (a directory URL, ending in '/'), its includes expanded. */
export function loadLua (dir: URL, name: string): string {
  const pulled = new Set<string>()
  const expand = (file: URL, chain: readonly string[]): string => readFileSync(file, 'utf8').replace(INCLUDE, (_, piece: string) => {
    if (chain.includes(piece)) throw new Error(`Lua include cycle in ${name}.lua: ${[...chain, piece].join(' -> ')}`)
    if (pulled.has(piece)) return ''
    const text = expand(new URL(`includes/${piece}.lua`, dir), [...chain, piece])
    pulled.add(piece)
    return text
  })
  return expand(new URL(`${name}.lua`, dir), [name])
}
