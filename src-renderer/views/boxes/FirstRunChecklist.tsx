import { useState } from 'react';
import { useBoxes } from '../../api/hooks/boxes.js';
import { useStatus } from '../../api/hooks/identity.js';
import { useModels } from '../../api/hooks/inference.js';
import { usePolicies } from '../../api/hooks/policies.js';
import { href } from '../../app/router.js';

const DISMISSED = 'box-desktop.checklist-dismissed';

/**
 * First-run checklist on the Boxes view: the four things a newcomer does first. Each item
 * ticks itself from what the service reports; the list disappears when all are done (or
 * when dismissed).
 */
export function FirstRunChecklist({ onCreate }: { onCreate: () => void }) {
  const status = useStatus();
  const models = useModels();
  const boxes = useBoxes({});
  const gone = useBoxes({ status: 'terminated' });
  const policies = usePolicies();
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(DISMISSED) === '1');
  if (status.isPending || boxes.isPending || gone.isPending || policies.isPending || models.isPending) return null;
  // the image stage alone: the first box waits for the image, not for the warm template
  const image = status.data?.preparation?.stages.find((s) => s.name === 'image');
  const imageReady = !image || image.state === 'ready';
  const items = [
    {
      id: 'image',
      done: imageReady,
      label: 'Guest image ready',
      hint: imageReady ? '' : 'Building now (once per machine); the first box waits for it.',
    },
    {
      id: 'model',
      done: (models.data?.length ?? 0) > 0,
      label: 'A model to talk to',
      hint: (
        <a className="text-accent-300 hover:underline" href={href(['settings', 'engines'])}>
          Add an engine or upstream in Settings
        </a>
      ),
    },
    {
      id: 'box',
      done: (boxes.data?.total ?? 0) + (gone.data?.total ?? 0) > 0,
      label: 'A box created',
      hint: (
        <button type="button" className="text-accent-300 hover:underline" onClick={onCreate}>
          Create one
        </button>
      ),
    },
    {
      id: 'policy',
      done: (policies.data?.length ?? 0) > 0,
      label: 'An egress policy chosen',
      hint: (
        <a className="text-accent-300 hover:underline" href={href(['policies'])}>
          Boxes reach the internet freely until you pick one
        </a>
      ),
    },
  ];
  if (dismissed || items.every((i) => i.done)) return null;
  return (
    <section className="panel mb-4 p-4" data-testid="checklist" aria-label="Getting started">
      <div className="mb-2 flex items-center justify-between">
        <h2 className="font-semibold">
          Getting started · {items.filter((i) => i.done).length} of {items.length}
        </h2>
        <button
          type="button"
          className="text-xs text-ink-400 hover:text-ink-100"
          onClick={() => {
            localStorage.setItem(DISMISSED, '1');
            setDismissed(true);
          }}
        >
          Hide
        </button>
      </div>
      <ul className="grid gap-1.5 sm:grid-cols-2">
        {items.map((i) => (
          <li key={i.id} className="flex items-start gap-2" data-testid={`checklist-${i.id}`} data-done={i.done}>
            <span
              className={`mt-0.5 grid h-4 w-4 shrink-0 place-items-center rounded-full border text-[10px] ${i.done ? 'border-accent-500 bg-accent-500 text-ink-950' : 'border-ink-600'}`}
            >
              {i.done ? '✓' : ''}
            </span>
            <span>
              <span className={i.done ? 'text-ink-400 line-through' : ''}>{i.label}</span>
              {!i.done && i.hint && <span className="block text-xs text-ink-400">{i.hint}</span>}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
