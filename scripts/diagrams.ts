import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate'
import { conversationMachine } from '../machines/conversation.machine.ts'
import { cropMachine } from '../machines/crop.machine.ts'

// `npm run diagrams`: Mermaid state diagrams generated from the machines themselves into docs/diagrams/.
// A test compares the committed files with a fresh render, so they cannot go stale.

export const DIAGRAMS = [
  { file: 'docs/diagrams/conversation.md', title: 'Conversation machine', source: 'machines/conversation.machine.ts', machine: conversationMachine },
  { file: 'docs/diagrams/crop.md', title: 'Crop lifecycle machine', source: 'machines/crop.machine.ts', machine: cropMachine },
] as const

function guardLabel (guard: AnyTransitionDefinition['guard']): string | undefined {
  if (guard === undefined) return undefined
  if (typeof guard === 'string') return guard
  if (typeof guard === 'function') return guard.name || 'guard'
  const params = guard.params && typeof guard.params === 'object' ? Object.values(guard.params as Record<string, unknown>).map(String).join(', ') : ''
  return params ? `${guard.type} ${params}` : guard.type
}

// Mermaid ids cannot hold dots or dashes; labels must not break its syntax.
const nodeId = (node: AnyStateNode) => node.path.join('__').replace(/[^A-Za-z0-9_]/g, '_')
const label = (text: string) => text.replace(/[;:#]/g, ' ').replace(/\s+/g, ' ').trim()

/** The state nodes under `node`, with the transitions that apply in each (their own, then their ancestors'). */
function leaves (node: AnyStateNode, inherited: AnyStateNode[] = []): Array<{ node: AnyStateNode, from: AnyStateNode[] }> {
  const children = Object.values(node.states)
  const chain = [node, ...inherited]
  if (children.length === 0) return [{ node, from: chain }]
  return children.flatMap((child) => leaves(child, chain))
}

/** A `stateDiagram-v2` of any XState machine: one edge per source, target and event, its guards joined. */
export function mermaidOf (machine: AnyStateMachine): string {
  const lines = ['stateDiagram-v2']
  const initial = machine.root.initial?.target[0]
  if (initial) lines.push(`  [*] --> ${nodeId(initial)}`)
  const edges = new Map<string, Set<string>>()
  for (const { node, from } of leaves(machine.root)) {
    if (node.type === 'final') lines.push(`  ${nodeId(node)} --> [*]`)
    for (const owner of from) {
      for (const [eventType, transitions] of owner.transitions) {
        for (const t of transitions) {
          const targets = t.target?.length ? t.target : [node]
          for (const target of targets) {
            const key = `${nodeId(node)} --> ${nodeId(target)}: ${eventType}`
            const guards = edges.get(key) ?? new Set<string>()
            guards.add(guardLabel(t.guard) ?? '')
            edges.set(key, guards)
          }
        }
      }
    }
  }
  for (const [key, guards] of edges) {
    // an unguarded move among guarded ones is the fallback
    const named = [...guards].map((g) => g || (guards.size > 1 ? 'else' : '')).filter(Boolean)
    const [edge = '', event = ''] = key.split(': ')
    lines.push(`  ${edge}: ${label(named.length ? `${event} [${named.join(' | ')}]` : event)}`)
  }
  return lines.join('\n')
}

export function renderDiagram (d: typeof DIAGRAMS[number]): string {
  return `# ${d.title}\n\nGenerated from \`${d.source}\` by \`npm run diagrams\`; do not edit by hand.\n\n\`\`\`mermaid\n${mermaidOf(d.machine)}\n\`\`\`\n`
}

function main (): void {
  for (const d of DIAGRAMS) {
    writeFileSync(resolve(d.file), renderDiagram(d))
    process.stdout.write(`wrote ${d.file}\n`)
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main()
