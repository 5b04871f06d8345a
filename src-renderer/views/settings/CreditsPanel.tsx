import { useEffect, useState } from 'react';
import { useOrganization, useSetCredits } from '../../api/hooks/identity.js';
import { Button } from '../../ui/Button.js';
import { formatUsd } from '../../ui/format.js';
import { LineChart } from '../../ui/LineChart.js';
import { ErrorNotice, Loading } from '../../ui/states.js';

const SAMPLES_KEY = 'box.credit-samples';

/**
 * Credits now, and spend as credits drawn down over time. The samples are taken by this
 * page while it is open (kept in sessionStorage), one per organization poll.
 */
export function CreditsPanel() {
  const org = useOrganization();
  const set = useSetCredits();
  const [samples, setSamples] = useState<Array<{ t: number; v: number }>>(() => JSON.parse(sessionStorage.getItem(SAMPLES_KEY) ?? '[]'));
  const [topUp, setTopUp] = useState('10');
  useEffect(() => {
    if (!org.data) return;
    setSamples((s) => {
      const next = [...s, { t: org.dataUpdatedAt, v: org.data.credits_usd_nanos }].slice(-500);
      sessionStorage.setItem(SAMPLES_KEY, JSON.stringify(next));
      return next;
    });
  }, [org.data, org.dataUpdatedAt]);
  const spent = samples.length > 1 ? samples.map((p) => ({ t: p.t, v: Math.max(0, samples[0].v - p.v) / 1e9 })) : [];
  const exhausted = org.data?.credits_usd_nanos === 0;
  return (
    <section className="panel p-4" data-testid="credits" id="billing">
      <h2 className="mb-3 font-semibold">Organization credits</h2>
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
              <input className="input w-32 font-mono" inputMode="decimal" value={topUp} onChange={(e) => setTopUp(e.target.value)} />
            </label>
            <Button type="submit" busy={set.isPending} disabled={!(Number(topUp) > 0)}>
              Add
            </Button>
          </form>
          <div className="label">Spend while this page was open</div>
          <LineChart testId="spend-chart" series={[{ label: 'spent', color: '#3fdcaa', points: spent }]} format={(v) => `$${v.toFixed(4)}`} empty="Spend appears here as usage draws credits down." />
        </>
      )}
    </section>
  );
}
