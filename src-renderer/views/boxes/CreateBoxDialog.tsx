import { useState } from 'react';
import { BOX_NAME, SIZES } from '@box/contract/boxes';
import { ApiError } from '../../api/client.js';
import { useCreateBox, type CreateBoxInput } from '../../api/hooks/boxes.js';
import { useImages } from '../../api/hooks/images.js';
import { usePolicies } from '../../api/hooks/policies.js';
import { useVolumes } from '../../api/hooks/volumes.js';
import { navigate } from '../../app/router.js';
import { Button } from '../../ui/Button.js';
import { Dialog } from '../../ui/Dialog.js';
import { formatResources } from '../../ui/format.js';
import { ErrorNotice } from '../../ui/states.js';
import { toast } from '../../ui/toast.js';
import { learnStart, shapeKey } from './boot-estimate.js';
import { PreparationPanel } from './PreparationPanel.js';

/** App (found or made by name), name, image, size, volumes, policy, ports. Creation answers once running. */
export function CreateBoxDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateBox();
  const volumes = useVolumes();
  const policies = usePolicies();
  const images = useImages();
  const [f, setF] = useState<CreateBoxInput & { ports: string; budget: string }>({
    app_name: 'default',
    name: '',
    image: '',
    size: 's',
    volume_mounts: [],
    http_policy_id: '',
    ingress_ports: [],
    ports: '',
    budget: '',
  });
  const set = (p: Partial<typeof f>) => setF((x) => ({ ...x, ...p }));
  const ports = f.ports
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  const portsBad = ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535);
  const budgetBad = f.budget.trim() !== '' && !/^\d{1,15}$/.test(f.budget.trim());
  const err = create.error instanceof ApiError ? create.error : null;
  const fieldErr = (name: string) =>
    err?.param && (err.param === name || err.param.startsWith(`${name}[`) || err.param.startsWith(`${name}.`)) ? err.message : null;
  const nameBad = boxNameProblem(f.name);
  const appBad = f.app_name.trim() ? null : 'App name is required: boxes are grouped by app.';
  const submit = () => {
    if (!f.name || nameBad || appBad || portsBad || budgetBad) return;
    const { ports: _typed, budget, ...input } = f;
    create.mutate(
      { ...input, ingress_ports: ports, ...(budget.trim() ? { inference_budget_tokens: Number(budget.trim()) } : {}) },
      {
        onSuccess: (b) => {
          if (b.status === 'running' && b.last_start) learnStart(shapeKey(f.image, f.size), b.last_start.ms);
          toast(b.status === 'failed' ? `Box ${b.name} failed to start` : `Box ${b.name} is running`, b.status === 'failed' ? 'error' : 'ok');
          onClose();
          navigate(['boxes', b.box_id]);
        },
      },
    );
  };
  return (
    <Dialog
      title="New box"
      onClose={onClose}
      wide
      testId="create-box-dialog"
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button
            variant="primary"
            busy={create.isPending}
            disabled={!f.name || !!nameBad || !!appBad || portsBad || budgetBad}
            onClick={submit}
            data-testid="create-box-submit"
          >
            {create.isPending ? 'Starting the box…' : 'Create'}
          </Button>
        </>
      }
    >
      <form
        className="grid grid-cols-2 gap-4"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Field label="App" error={appBad ?? fieldErr('app_name') ?? fieldErr('app_id')}>
          <input
            className="input"
            aria-invalid={appBad ? true : undefined}
            value={f.app_name}
            onChange={(e) => set({ app_name: e.target.value })}
            data-testid="box-app"
          />
        </Field>
        <Field label="Name" error={nameBad ?? fieldErr('name')}>
          <input
            className="input font-mono"
            placeholder="my-box"
            aria-invalid={nameBad ? true : undefined}
            value={f.name}
            onChange={(e) => set({ name: e.target.value.toLowerCase() })}
            autoFocus
            data-autofocus
            data-testid="box-name"
          />
        </Field>
        <Field label="Image" error={fieldErr('image')}>
          <select className="input font-mono" value={f.image} onChange={(e) => set({ image: e.target.value })} data-testid="box-image">
            <option value="">debian (default)</option>
            {images.data
              ?.filter((i) => i.name !== 'debian')
              .map((i) => (
                <option key={i.name} value={i.name}>
                  {i.name} ({i.source})
                </option>
              ))}
          </select>
        </Field>
        <Field label="Size" group>
          <div className="grid grid-cols-3 gap-1" role="radiogroup" aria-label="Box size">
            {(Object.keys(SIZES) as Array<keyof typeof SIZES>).map((s) => (
              <button
                key={s}
                type="button"
                role="radio"
                aria-checked={f.size === s}
                onClick={() => set({ size: s })}
                data-testid={`size-${s}`}
                className={`rounded-md border px-2 py-1.5 text-left ${f.size === s ? 'border-accent-500 bg-accent-500/10' : 'border-ink-700 hover:border-ink-600'}`}
              >
                <div className="font-mono font-semibold uppercase">{s}</div>
                <div className="text-[10px] text-ink-400">{formatResources(SIZES[s])}</div>
              </button>
            ))}
          </div>
        </Field>
        <Field label="HTTP policy" error={fieldErr('http_policy_id')}>
          <select className="input" value={f.http_policy_id ?? ''} onChange={(e) => set({ http_policy_id: e.target.value })}>
            <option value="">Organization default (allow all, logged)</option>
            {policies.data?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Published ports" error={portsBad ? 'Ports are numbers from 1 to 65535.' : fieldErr('ingress_ports')}>
          <input className="input font-mono" placeholder="8080, 3000" value={f.ports} onChange={(e) => set({ ports: e.target.value })} />
        </Field>
        <Field label="Inference budget (tokens)" error={budgetBad ? 'A whole number of tokens, or empty for unlimited.' : fieldErr('inference_budget_tokens')}>
          <input
            className="input font-mono"
            inputMode="numeric"
            placeholder="unlimited"
            value={f.budget}
            onChange={(e) => set({ budget: e.target.value })}
            data-testid="box-budget-input"
          />
        </Field>
        <div className="col-span-2">
          <Field label="Volumes" error={fieldErr('volume_mounts')} group>
            <VolumeMounts value={f.volume_mounts} onChange={(volume_mounts) => set({ volume_mounts })} options={volumes.data ?? []} />
          </Field>
        </div>
        <button type="submit" hidden />
      </form>
      <div className="mt-3">
        <PreparationPanel booting={create.isPending} shape={shapeKey(f.image, f.size)} />
      </div>
      {create.error && !fieldErr('name') && !fieldErr('image') && !fieldErr('app_name') ? (
        <div className="mt-3">
          <ErrorNotice error={create.error} />
        </div>
      ) : null}
    </Dialog>
  );
}

/**
 * The service's rule for box names, said as you type
 * rather than after Create (issue 38, item 9). Empty is not an error yet: Create stays disabled.
 */
function boxNameProblem(name: string): string | null {
  if (!name || BOX_NAME.test(name)) return null;
  if (name.length > 63) return 'Name must be at most 63 characters long.';
  if (/[^a-z0-9-]/.test(name)) return 'Name may contain only lowercase letters, digits and "-".';
  return 'Name must start and end with a letter or digit.';
}

/** A labelled field; `group` for controls made of several buttons (a <label> would forward clicks). */
function Field({ label, error, children, group }: { label: string; error?: string | null; children: React.ReactNode; group?: boolean }) {
  const body = (
    <>
      <span className="label">{label}</span>
      {children}
      {error && (
        <span className="mt-1 block text-xs text-rose-300" data-testid="field-error">
          {error}
        </span>
      )}
    </>
  );
  return group ? (
    <div className="block" role="group" aria-label={label}>
      {body}
    </div>
  ) : (
    <label className="block">{body}</label>
  );
}

function VolumeMounts({
  value,
  onChange,
  options,
}: {
  value: CreateBoxInput['volume_mounts'];
  onChange: (v: CreateBoxInput['volume_mounts']) => void;
  options: Array<{ volume_id: string; name: string }>;
}) {
  return (
    <div className="space-y-1.5">
      {value.map((m, i) => (
        <div key={i} className="flex gap-2">
          <select className="input" value={m.volume_id} onChange={(e) => onChange(value.map((x, j) => (j === i ? { ...x, volume_id: e.target.value } : x)))}>
            {options.map((o) => (
              <option key={o.volume_id} value={o.volume_id}>
                {o.name}
              </option>
            ))}
          </select>
          <input
            className="input font-mono"
            value={m.mount_path}
            onChange={(e) => onChange(value.map((x, j) => (j === i ? { ...x, mount_path: e.target.value } : x)))}
          />
          <Button small variant="ghost" onClick={() => onChange(value.filter((_, j) => j !== i))} aria-label="Remove mount">
            ✕
          </Button>
        </div>
      ))}
      <Button
        small
        disabled={options.length === 0}
        onClick={() => onChange([...value, { volume_id: options[0].volume_id, mount_path: `/mnt/${options[0].name}` }])}
      >
        {options.length === 0 ? 'No volumes to mount' : 'Mount a volume'}
      </Button>
    </div>
  );
}
