import { useState } from 'react';
import { BoxTokensTable } from './BoxTokensTable.js';
import { useOrganization, useSetCredits, useSpend, useTokenSpend } from '../../api/hooks/identity.js';
import { Button } from '../../ui/Button.js';
import { formatUsd } from '../../ui/format.js';
import { LineChart } from '../../ui/LineChart.js';
import { ErrorNotice, Loading } from '../../ui/states.js';

const DAYS = 30;

/** Credits now; spend per day over the last 30 days (boxes and tokens), from the usage area. */
export function CreditsPanel() {
  const org = useOrganization();
  const set = useSetCredits();
  const spend = useSpend(DAYS);
  const tokens = useTokenSpend(DAYS);
  const [topUp, setTopUp] = useState('10');
  const exhausted = org.data?.credits_usd_nanos === 0;
  const day = (d: string) => new Date(`${d}T00:00:00Z`).getTime();
  const tokenByDay = new Map<string, number>();
  for (const r of tokens.data?.data ?? []) tokenByDay.set(r.day, (tokenByDay.get(r.day) ?? 0) + r.usd_nanos);
  const boxSeries = (spend.data?.series ?? []).map((p) => ({ t: day(p.day), v: p.usd_nanos / 1e9 }));
  const tokenSeries = [...tokenByDay].sort(([a], [b]) => a.localeCompare(b)).map(([d, v]) => ({ t: day(d), v: v / 1e9 }));
  return (
    <section className="panel p-4" data-testid="credits" id="billing">
      <h2 className="mb-1 font-semibold">Organization credits</h2>
      <p className="mb-3 text-xs text-ink-400" data-testid="credits-explained">
        A local budget, not a payment: box time and model tokens are priced at the spec's rates and taken from it, so you can see and cap what scripts spend. At
        $0 the API answers 402 to every key (boxes keep running, new work is refused) until you add credits here; nothing is charged anywhere.
      </p>
      {org.isPending ? (
        <Loading />
      ) : (
        <>
          <ErrorNotice error={org.error ?? set.error} />
          {org.data && (
            <div className="mb-3 flex items-baseline gap-3">
              <span className={`font-mono text-2xl ${exhausted ? 'text-rose-300' : 'text-accent-300'}`} data-testid="credits-value">
                {formatUsd(org.data.credits_usd_nanos)}
              </span>
              <span className="text-ink-400">{org.data.name}</span>
            </div>
          )}
          {exhausted && <p className="mb-3 text-rose-300">Credits are exhausted: every key gets 402 until you add credits.</p>}
          <form
            className="mb-4 flex items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              const usd = Number(topUp);
              if (org.data && usd > 0) set.mutate(org.data.credits_usd_nanos + Math.round(usd * 1e9));
            }}
          >
            <label>
              <span className="label">Add credits (USD)</span>
              <input
                className="input w-32 font-mono"
                inputMode="decimal"
                value={topUp}
                onChange={(e) => setTopUp(e.target.value)}
                data-testid="credits-add-amount"
              />
            </label>
            <Button type="submit" busy={set.isPending} disabled={!(Number(topUp) > 0)} data-testid="credits-add">
              Add
            </Button>
          </form>
          <div className="mb-1 flex items-baseline justify-between">
            <span className="label">Spend per day, last {DAYS} days</span>
            <span className="font-mono text-xs text-ink-400" data-testid="spend-total">
              boxes {formatUsd(spend.data?.totals.usd_nanos ?? 0)} · tokens {formatUsd(tokens.data?.totals.usd_nanos ?? 0)}
            </span>
          </div>
          {spend.error ? (
            <ErrorNotice error={spend.error} compact />
          ) : (
            <LineChart
              testId="spend-chart"
              series={[
                { label: 'boxes', color: '#3fdcaa', points: boxSeries },
                { label: 'tokens', color: '#60a5fa', points: tokenSeries },
              ]}
              format={(v) => `$${v.toFixed(4)}`}
              empty="Spend appears here once boxes run or models answer (two days of data draw a line)."
            />
          )}
          <BoxTokensTable rows={tokens.data?.boxes ?? []} />
        </>
      )}
    </section>
  );
}
