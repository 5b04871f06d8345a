import { useQuery } from '@tanstack/react-query';
import { useStatus } from '../../api/hooks/identity.js';
import { desktop } from '../../desktop.js';
import { Button } from '../../ui/Button.js';
import { ErrorNotice, Loading } from '../../ui/states.js';

/** What the service runs on: its version, the accelerator, engines and models, the data folder. */
export function StatusPanel() {
  const status = useStatus();
  const bridge = desktop();
  const svc = useQuery({ queryKey: ['desktop-state'], queryFn: () => bridge!.invoke('service:state', undefined), enabled: Boolean(bridge) });
  const { version, api_version, accelerator, data_dir, engines: _engines, preparation: _preparation, ...rest } = status.data ?? ({} as Record<string, unknown>);
  return (
    <section className="panel p-4" data-testid="status">
      <h2 className="mb-3 font-semibold">Service</h2>
      {status.isPending && <Loading />}
      <ErrorNotice error={status.error} />
      {status.data && (
        <dl className="grid grid-cols-[10rem_1fr] gap-x-4 gap-y-2">
          <dt className="text-ink-400">Version</dt>
          <dd className="font-mono">
            {String(version)} · API {String(api_version)}
          </dd>
          <dt className="text-ink-400">Accelerator</dt>
          <dd data-testid="accelerator">
            <Value v={accelerator ?? 'not reported (no inference engine loaded)'} />
          </dd>
          {status.data.preparation?.stages.map((s) => (
            <div key={s.name} className="contents">
              <dt className="text-ink-400">{s.name === 'image' ? 'Guest image' : s.name === 'code' ? 'Code interpreter' : 'Template'}</dt>
              <dd data-testid={`status-${s.name}`}>
                {s.state === 'running' ? `${s.percent}% · ${s.message}` : s.state === 'failed' ? `failed: ${s.error ?? ''}` : s.state}
              </dd>
            </div>
          ))}
          {Object.entries(rest).map(([k, v]) => (
            <div key={k} className="contents">
              <dt className="text-ink-400">{k.replace(/_/g, ' ')}</dt>
              <dd>
                <Value v={v} />
              </dd>
            </div>
          ))}
          <dt className="text-ink-400">Data folder</dt>
          <dd className="flex items-center gap-2">
            {bridge ? (
              <>
                <code className="text-ink-300">{svc.data?.dataDir ?? String(data_dir ?? '…')}</code>
                <Button small onClick={() => void bridge.invoke('shell:reveal-data-folder', undefined)}>
                  Reveal
                </Button>
                <Button small onClick={() => void bridge.invoke('clipboard:copy-api-key', undefined)}>
                  Copy API key
                </Button>
              </>
            ) : (
              <code className="text-ink-300" data-testid="data-dir">
                {String(data_dir ?? '—')}
              </code>
            )}
          </dd>
        </dl>
      )}
    </section>
  );
}

function Value({ v }: { v: unknown }) {
  if (v === null || v === undefined) return <span className="text-ink-400">—</span>;
  if (typeof v !== 'object') return <span className="font-mono">{String(v)}</span>;
  return <pre className="overflow-auto rounded bg-ink-950 p-2 font-mono text-xs text-ink-300">{JSON.stringify(v, null, 2)}</pre>;
}
