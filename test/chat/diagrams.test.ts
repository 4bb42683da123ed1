import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CONVERSATION_STATES } from '../../machines/conversation.types.ts'
import { DIAGRAMS, mermaidOf, renderDiagram } from '../../scripts/diagrams.ts'
import { conversationMachine } from '../../machines/conversation.machine.ts'

// The committed diagrams are what the machines say today: run `npm run diagrams` after changing a machine.

describe('state diagrams', () => {
  it.each(DIAGRAMS.map((d) => [d.file, d] as const))('%s is up to date', (_file, d) => {
    expect(readFileSync(d.file, 'utf8'), `${d.file} is stale: run npm run diagrams`).toBe(renderDiagram(d))
  })

  it('draws every conversation state and its moves', () => {
    const chart = mermaidOf(conversationMachine)
    for (const state of CONVERSATION_STATES) expect(chart).toContain(`--> ${state}:`)
    expect(chart).toContain('[*] --> UNLINKED')
    expect(chart).toContain('CONFIRMING_ORDER --> MAIN_MENU: ORDER_PLACED')
  })
})
