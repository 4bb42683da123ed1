import type { Tenant } from '../tenants/model.ts'
import { zonedDay } from '../tenants/time.ts'
import { toGrams, type Batch } from './model.ts'

// The info sheet that goes with the batch's neutral packaging (KCanG §21: weight, harvest date, best-before,
// strain, average THC and CBD), in the club's language, as a printable page or plain text. Pure.

const WORDS = {
  es: {
    title: 'Hoja informativa del lote',
    batch: 'Lote',
    strain: 'Variedad',
    harvested: 'Fecha de cosecha',
    bestBefore: 'Consumir preferentemente antes del',
    weight: 'Peso por unidad',
    thc: 'THC promedio',
    cbd: 'CBD promedio',
    lab: 'Informe de laboratorio',
    noLab: 'sin análisis registrado',
    recalled: 'LOTE RETIRADO: no consumir.',
    notice: 'Producto de cultivo propio del club, solo para sus socios mayores de edad. Mantener fuera del alcance de menores.',
  },
  en: {
    title: 'Batch information sheet',
    batch: 'Batch',
    strain: 'Strain',
    harvested: 'Harvest date',
    bestBefore: 'Best before',
    weight: 'Weight per unit',
    thc: 'Average THC',
    cbd: 'Average CBD',
    lab: 'Lab report',
    noLab: 'no analysis recorded',
    recalled: 'BATCH RECALLED: do not use.',
    notice: 'Grown by the club for its adult members only. Keep out of the reach of children.',
  },
}

/** Label and value pairs, in the order they are printed. */
function rows (tenant: Tenant, batch: Batch): Array<[string, string]> {
  const w = WORDS[tenant.locale]
  const day = (iso: string) => zonedDay(Date.parse(iso), tenant.timeZone)
  const percent = (n: number | undefined) => n === undefined ? w.noLab : `${n.toLocaleString(tenant.locale)} %`
  const weights = [...new Set(batch.shelf.map((l) => `${toGrams(l.mgPerUnit).toLocaleString(tenant.locale)} g`))]
  return [
    [w.batch, batch.batchNumber],
    [w.strain, batch.strain.name],
    [w.harvested, day(batch.harvestedAt)],
    [w.bestBefore, day(batch.bestBefore)],
    [w.weight, weights.length > 0 ? weights.join(', ') : '-'],
    [w.thc, percent(batch.lab?.thcPercent)],
    [w.cbd, percent(batch.lab?.cbdPercent)],
    [w.lab, batch.lab?.reportRef ?? w.noLab],
  ]
}

export function infoSheetText (tenant: Tenant, batch: Batch): string {
  const w = WORDS[tenant.locale]
  const lines = [`${tenant.name}: ${w.title}`, '', ...rows(tenant, batch).map(([k, v]) => `${k}: ${v}`), '']
  if (batch.recall) lines.push(w.recalled)
  lines.push(w.notice)
  return `${lines.join('\n')}\n`
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export function infoSheetHtml (tenant: Tenant, batch: Batch): string {
  const w = WORDS[tenant.locale]
  const table = rows(tenant, batch).map(([k, v]) => `<tr><th scope="row">${escape(k)}</th><td>${escape(v)}</td></tr>`).join('')
  return `<!doctype html>
<html lang="${tenant.locale}"><head><meta charset="utf-8"><title>${escape(`${w.title} ${batch.batchNumber}`)}</title>
<style>body{font-family:sans-serif;max-width:40em;margin:1em auto}th{text-align:left;padding-right:1em}td,th{padding:.3em 0;border-bottom:1px solid #ccc}
.recalled{font-weight:bold;border:2px solid #000;padding:.5em}@media print{body{margin:0}}</style></head>
<body><h1>${escape(w.title)}</h1><p>${escape(tenant.name)}</p><table>${table}</table>
${batch.recall ? `<p class="recalled">${escape(w.recalled)}</p>` : ''}<p>${escape(w.notice)}</p></body></html>
`
}
