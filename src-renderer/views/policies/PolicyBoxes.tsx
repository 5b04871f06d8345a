import { useState } from 'react';
import { useBoxes } from '../../api/hooks/boxes.js';
import { useAttachPolicy } from '../../api/hooks/policies.js';
import { href } from '../../app/router.js';
import { Button } from '../../ui/Button.js';
import { ErrorNotice } from '../../ui/states.js';
import { StatusPill } from '../../ui/StatusPill.js';

const ATTACHABLE = new Set(['running', 'paused', 'sleeping', 'creating']);

/** Which boxes use this policy; attach it to another box, or detach it. */
export function PolicyBoxes({ policyId }: { policyId: string }) {
  const boxes = useBoxes();
  const attach = useAttachPolicy();
  const [pick, setPick] = useState('');
  const all = boxes.data?.data ?? [];
  const using = all.filter((b) => b.http_policy_id === policyId);
  const others = all.filter((b) => b.http_policy_id !== policyId && ATTACHABLE.has(b.status));
  return (
    <section className="panel self-start p-4" data-testid="policy-boxes">
      <h3 className="mb-2 font-semibold">Boxes using this policy</h3>
      {boxes.error ? (
        <ErrorNotice error={boxes.error} compact />
      ) : using.length === 0 ? (
        <p className="text-ink-400">No box uses it yet.</p>
      ) : (
        <ul className="mb-3 space-y-1">
          {using.map((b) => (
            <li key={b.box_id} className="flex items-center justify-between gap-2" data-testid="policy-box" data-name={b.name}>
              <a className="hover:underline" href={href(['boxes', b.box_id])}>
                {b.name}
              </a>
              <span className="flex items-center gap-2">
                <StatusPill status={b.status} />
                <Button small variant="ghost" onClick={() => attach.mutate({ boxId: b.box_id, policyId: null })}>
                  Detach
                </Button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <div className="mt-3 flex gap-2">
        <select className="input" value={pick} onChange={(e) => setPick(e.target.value)} data-testid="attach-box-select" aria-label="Box to attach to">
          <option value="">Attach to a box…</option>
          {others.map((b) => (
            <option key={b.box_id} value={b.box_id}>
              {b.name} ({b.status})
            </option>
          ))}
        </select>
        <Button
          disabled={!pick}
          busy={attach.isPending}
          onClick={() => attach.mutate({ boxId: pick, policyId }, { onSuccess: () => setPick('') })}
          data-testid="attach-box"
        >
          Attach
        </Button>
      </div>
      <div className="mt-2">
        <ErrorNotice error={attach.error} compact />
      </div>
    </section>
  );
}
