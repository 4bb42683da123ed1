import type { components } from '../api.gen.ts'
import { locale, strings } from '../i18n.ts'

type Quota = components['schemas']['MemberQuota']
type Standing = components['schemas']['MemberStanding']

const grams = (n: number, l: string) => `${new Intl.NumberFormat(l, { maximumFractionDigits: 1 }).format(n)} g`

/** A member's standing and what they may still take per period, as the club's rules count it. */
export function StandingView ({ quota, standing }: { quota: Quota | null, standing?: Standing | null }) {
  const t = strings(locale.value)
  if (!quota) return <p>{t.loading}</p>
  return (
    <div class='standing'>
      <dl>
        <dt>{t.standing}</dt>
        <dd><span class={`badge status-${quota.status}`}>{t.statuses[quota.status]}</span>{standing?.reason ? ` · ${standing.reason}` : ''}</dd>
        {standing?.validUntil && <><dt>{t.validUntil}</dt><dd>{new Date(standing.validUntil).toLocaleDateString(locale.value)}</dd></>}
        {quota.thcCeilingPercent !== null && <><dt>{t.thcCeiling}</dt><dd>{quota.thcCeilingPercent} %</dd></>}
        {quota.young && <><dt>{t.young}</dt><dd>{t.yes}</dd></>}
      </dl>
      {quota.periods.length === 0 && <p>{t.noLimits}</p>}
      {quota.periods.length > 0 && (
        <table>
          <caption>{t.remaining}</caption>
          <thead>
            <tr>
              <th scope='col'>{t.period}</th><th scope='col'>{t.remaining}</th><th scope='col'>{t.used}</th><th scope='col'>{t.reserved}</th>
              <th scope='col'>{t.limit}</th>
            </tr>
          </thead>
          <tbody>
            {quota.periods.map((p) => (
              <tr key={p.period}>
                <th scope='row'>{t.periods[p.period]}</th>
                <td><strong>{grams(p.remaining, locale.value)}</strong></td>
                <td>{grams(p.used, locale.value)}</td>
                <td>{grams(p.reserved, locale.value)}</td>
                <td>{grams(p.limit, locale.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}
