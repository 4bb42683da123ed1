import axe from 'axe-core'
import { chromium, type Browser, type Page } from 'playwright-core'

// Debian's Chromium driven by playwright-core (`npx playwright install` cannot download a browser here);
// .ci/run installs the package when it is missing. The flags keep it off the network it has no business with;
// playwright gives each launch a fresh profile of its own.
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export async function launchChromium (): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
    ],
  })
}

export interface Violation { id: string, impact: string | null, help: string, nodes: string[] }

/** axe-core in the page (run through the debugging protocol, so the console's CSP stays as served): serious and critical violations. */
export async function seriousViolations (page: Page): Promise<Violation[]> {
  await page.evaluate(axe.source)
  return await page.evaluate(async () => {
    type Found = { id: string, impact: string | null, help: string, nodes: Array<{ target: string[] }> }
    const w = window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: Found[] }> } }
    const result = await w.axe.run(document, { resultTypes: ['violations'] })
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }))
  })
}

/** What Tab reaches from the page's first link, in order: each focused element's tag and name. */
export async function tabWalk (page: Page, steps: number): Promise<string[]> {
  await page.locator('a').first().focus()
  const seen: string[] = []
  for (let i = 0; i < steps; i++) {
    await page.keyboard.press('Tab')
    seen.push(await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null
      if (!el) return ''
      const label = el.getAttribute('aria-label') ?? (el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null) ??
        el.closest('label')?.textContent ?? el.textContent ?? ''
      return `${el.tagName.toLowerCase()}:${label.trim().slice(0, 40)}`
    }))
  }
  return seen
}

/**
 * The page's visible, enabled controls that Tab never reaches, pressing Tab from the document's start until each
 * was focused once (a date field takes a Tab per part; of a radio group only the checked one is a stop).
 */
export async function unreachableByTab (page: Page): Promise<string[]> {
  const count = await page.evaluate(() => {
    const controls = [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')].filter((el) => {
      if ((el as HTMLButtonElement).disabled || el.closest('[inert]')) return false
      const radio = el instanceof HTMLInputElement && el.type === 'radio' ? el : null
      if (radio && !radio.checked && document.querySelector(`input[type=radio][name="${radio.name}"]:checked`)) return false
      const box = el.getBoundingClientRect()
      return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden'
    })
    document.querySelectorAll('[data-kb]').forEach((el) => el.removeAttribute('data-kb'))
    controls.forEach((el, i) => el.setAttribute('data-kb', String(i)))
    ;(document.activeElement as HTMLElement | null)?.blur()
    return controls.length
  })
  const reached = new Set<string>()
  for (let i = 0; i < count * 4 + 10 && reached.size < count; i++) {
    await page.keyboard.press('Tab')
    const at = await page.evaluate(() => document.activeElement?.getAttribute('data-kb') ?? null)
    if (at !== null) reached.add(at)
  }
  return await page.evaluate((seen) => [...document.querySelectorAll<HTMLElement>('[data-kb]')]
    .filter((el) => !seen.includes(el.getAttribute('data-kb') ?? ''))
    .map((el) => `${el.tagName.toLowerCase()}:${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}`), [...reached])
}
