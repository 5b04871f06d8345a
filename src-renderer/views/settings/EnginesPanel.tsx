import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api/client.js';
import type { BodyOf } from '@box/contract/call';
import { useEngines, useModels } from '../../api/hooks/inference.js';
import { Button } from '../../ui/Button.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { ErrorNotice, Loading } from '../../ui/states.js';
import type { EngineError, EngineTest } from '@box/contract/inference';

/** Inference engines (embedded, upstreams, discovered local servers, the built-in test engine) and their models. */
export function EnginesPanel() {
  const engines = useEngines();
  const models = useModels();
  const qc = useQueryClient();
  const refresh = () => Promise.all([qc.invalidateQueries({ queryKey: ['engines'] }), qc.invalidateQueries({ queryKey: ['models'] })]);
  const add = useMutation({ mutationFn: (b: BodyOf<'POST /v1/engines'>) => call('POST /v1/engines', { body: b }), onSuccess: refresh });
  const del = useMutation({ mutationFn: (name: string) => call('DELETE /v1/engines/:name', { params: { name } }), onSuccess: refresh });
  // Tests a stored upstream now (its model list); the outcome shows as its last error.
  const test = useMutation({ mutationFn: (name: string) => call('POST /v1/engines/:name/test', { params: { name }, body: {} }), onSettled: refresh });
  const [f, setF] = useState({ name: '', kind: 'openai', base_url: '', api_key: '', untested: false });
  return (
    <section className="panel p-4" data-testid="engines-panel">
      <h2 className="mb-3 font-semibold">Engines and models</h2>
      {engines.isPending ? <Loading /> : <ErrorNotice error={engines.error} compact />}
      <ul className="mb-3 space-y-2">
        {engines.data?.map((e) => {
          const own = models.data?.filter((m) => m.id.startsWith(`${e.name}/`)) ?? [];
          return (
            <li key={e.name} className="rounded-md border border-ink-700 p-2.5" data-testid="engine">
              <div className="flex items-center justify-between gap-2">
                <div>
                  <span className="font-mono font-semibold">{e.name}</span>{' '}
                  <span className="text-xs text-ink-400">{e.kind === 'test' ? 'built-in test engine' : e.kind}</span>
                  {e.discovered && <span className="ml-1 rounded bg-ink-950 px-1.5 text-[11px] text-accent-400">found on this machine</span>}
                  {e.base_url && <div className="font-mono text-[11px] text-ink-400">{e.base_url}</div>}
                </div>
                <span className="flex shrink-0 gap-1.5">
                  {e.kind !== 'local' && e.kind !== 'test' && !e.discovered && (
                    <Button small busy={test.isPending && test.variables === e.name} onClick={() => test.mutate(e.name)} data-testid="engine-test">
                      Test
                    </Button>
                  )}
                  {e.kind !== 'local' && e.kind !== 'test' && (
                    <ConfirmButton
                      onConfirm={() => del.mutate(e.name)}
                      busy={del.isPending && del.variables === e.name}
                      confirmLabel={e.discovered ? 'Stop using it?' : 'Remove?'}
                    >
                      {e.discovered ? 'Dismiss' : 'Remove'}
                    </ConfirmButton>
                  )}
                </span>
              </div>
              <div className="mt-1 flex flex-wrap gap-1">
                {own.length === 0 ? (
                  <span className="text-xs text-ink-400">no models</span>
                ) : (
                  own.map((m) => (
                    <code key={m.id} className="rounded bg-ink-950 px-1.5 py-0.5 text-[11px] text-ink-300">
                      {m.id}
                    </code>
                  ))
                )}
              </div>
              <EngineHealth error={(e as { last_error?: EngineError | null }).last_error} tested={test.data?.name === e.name ? test.data : undefined} />
            </li>
          );
        })}
      </ul>
      <form
        className="grid grid-cols-[7rem_6.5rem_1fr] gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate(
            {
              name: f.name,
              kind: f.kind as 'openai' | 'anthropic',
              base_url: f.base_url,
              api_key: f.api_key || undefined,
              ...(f.untested ? { verify: false } : {}),
            },
            { onSuccess: () => setF({ ...f, name: '', base_url: '', api_key: '', untested: false }) },
          );
        }}
      >
        <input className="input font-mono" placeholder="name" value={f.name} onChange={(e) => setF({ ...f, name: e.target.value })} aria-label="Engine name" />
        <select className="input" value={f.kind} onChange={(e) => setF({ ...f, kind: e.target.value })} aria-label="Kind">
          <option value="openai">openai</option>
          <option value="anthropic">anthropic</option>
        </select>
        <input
          className="input font-mono"
          placeholder="https://api.example.com/v1"
          value={f.base_url}
          onChange={(e) => setF({ ...f, base_url: e.target.value })}
          aria-label="Base URL"
        />
        <input
          className="input col-span-2 font-mono"
          type="password"
          placeholder="API key (stored encrypted)"
          value={f.api_key}
          onChange={(e) => setF({ ...f, api_key: e.target.value })}
          aria-label="API key"
        />
        <Button type="submit" busy={add.isPending} disabled={!f.name || !f.base_url} data-testid="engine-add">
          Add upstream
        </Button>
        <label className="col-span-3 flex items-center gap-2 text-xs text-ink-300">
          <input type="checkbox" checked={f.untested} onChange={(e) => setF({ ...f, untested: e.target.checked })} data-testid="engine-untested" />
          Save without testing the connection (the upstream is offline now, or answers its model list only later)
        </label>
      </form>
      <p className="mt-1 text-xs text-ink-400">Adding tests the connection first (its model list, 5 s); a problem is shown here and nothing is saved.</p>
      <div className="mt-2" data-testid="engine-add-error">
        <ErrorNotice error={add.error ?? del.error ?? test.error} />
        {add.error !== null && !f.untested && (
          <p className="mt-1 text-xs text-ink-300" data-testid="engine-untested-hint">
            To keep it anyway, tick “Save without testing” and add it again.
          </p>
        )}
      </div>
    </section>
  );
}

/** Beside an upstream: why its model list failed last (or the result of "Test"). */
function EngineHealth({ error, tested }: { error: EngineError | null | undefined; tested?: EngineTest }) {
  if (tested?.ok)
    return (
      <p className="mt-1 text-xs text-emerald-300" data-testid="engine-ok">
        Connected · {tested.models} model{tested.models === 1 ? '' : 's'}
      </p>
    );
  if (!error) return null;
  return (
    <p
      className="mt-1 rounded bg-rose-500/10 px-2 py-1 text-xs text-rose-200"
      data-testid="engine-error"
      title={`${error.code} · ${new Date(error.at).toLocaleString()}`}
    >
      {error.message}
    </p>
  );
}
