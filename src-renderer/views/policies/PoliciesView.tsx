import { useBoxes } from '../../api/hooks/boxes.js';
import { Ago } from '../../ui/Ago.js';
import { usePolicies } from '../../api/hooks/policies.js';
import { href } from '../../app/router.js';
import { Empty, ErrorNotice, Loading, PageHeader } from '../../ui/states.js';
import { Mono } from '../../ui/StatusPill.js';
import { PolicyBoxes } from './PolicyBoxes.js';
import { PolicyEditor } from './PolicyEditor.js';

export function PoliciesView({ policyId }: { policyId?: string }) {
  const policies = usePolicies();
  const boxes = useBoxes();
  const usedBy = (id: string) => boxes.data?.data.filter((b) => b.http_policy_id === id && b.status !== 'terminated').length ?? 0;
  const isNew = policyId === 'new';
  const selected = policies.data?.find((p) => p.id === policyId) ?? null;
  return (
    <div data-testid="view-policies">
      <PageHeader title="HTTP policies" subtitle="What boxes may reach on the network, and which secrets the proxy adds on the way out." />
      <div className="grid gap-5 lg:grid-cols-[16rem_1fr]">
        <aside className="space-y-2">
          <a
            href={href(['policies', 'new'])}
            className="block rounded-md bg-accent-500 px-3 py-1.5 text-center font-semibold text-ink-950 hover:bg-accent-400"
            data-testid="policy-new"
          >
            New policy
          </a>
          {policies.isPending ? (
            <Loading />
          ) : policies.error ? (
            <ErrorNotice error={policies.error} />
          ) : policies.data.length === 0 ? (
            <Empty title="No policies">Boxes without a policy follow the organization default (allow all, logged).</Empty>
          ) : (
            <ul className="space-y-1">
              {policies.data.map((p) => (
                <li key={p.id}>
                  <a
                    href={href(['policies', p.id])}
                    data-testid="policy-item"
                    data-name={p.name}
                    className={`block rounded-md border px-3 py-2 ${p.id === policyId ? 'border-accent-500/60 bg-ink-800' : 'border-ink-800 hover:border-ink-600'}`}
                  >
                    <div className="font-medium">{p.name}</div>
                    <div className="text-[11px] text-ink-400">
                      {Object.keys(p.document).length} hosts · {usedBy(p.id)} {usedBy(p.id) === 1 ? 'box' : 'boxes'} · updated <Ago iso={p.updated_at} />
                    </div>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </aside>
        <section className="min-w-0">
          {isNew ? (
            <PolicyEditor key="new" policy={null} />
          ) : selected ? (
            <div className="grid gap-4 xl:grid-cols-[1fr_18rem]">
              <div>
                <div className="mb-2">
                  <Mono>{selected.id}</Mono>
                </div>
                <PolicyEditor key={selected.id} policy={selected} />
              </div>
              <PolicyBoxes policyId={selected.id} />
            </div>
          ) : (
            <Empty title="Select or create a policy">A document maps host patterns (exact, *.domain, or *) to rules.</Empty>
          )}
        </section>
      </div>
    </div>
  );
}
