import { useDeleteTemplate, useTemplates } from '../../api/hooks/templates.js';
import { Ago } from '../../ui/Ago.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { formatBytes } from '../../ui/format.js';
import { ErrorNotice, Loading } from '../../ui/states.js';

const STATE_STYLE: Record<string, string> = {
  ready: 'text-emerald-400',
  building: 'text-amber-300',
  stale: 'text-ink-400',
  failed: 'text-red-400',
};

/** Warm templates new boxes are cloned from: state (with build progress), bytes, boxes using each. */
export function TemplatesPanel() {
  const templates = useTemplates();
  const del = useDeleteTemplate();
  return (
    <section className="panel p-4" data-testid="templates-panel" id="templates">
      <h2 className="mb-1 font-semibold">Templates</h2>
      <p className="mb-3 text-xs text-ink-400">A booted image per size; new boxes start as copy-on-write clones of it.</p>
      {templates.isPending ? <Loading /> : <ErrorNotice error={templates.error ?? del.error} compact />}
      {templates.data?.length === 0 && <p className="text-sm text-ink-400">No template yet: the first box of a size builds one.</p>}
      <ul className="space-y-2">
        {templates.data?.map((t) => (
          <li key={t.template_id} className="rounded-md border border-ink-700 p-2.5" data-testid="template" data-state={t.state}>
            <div className="flex items-center justify-between gap-2">
              <div>
                <span className="font-mono font-semibold">{t.image}</span>{' '}
                {t.volume_slots && (
                  <span className="text-xs text-ink-400" title="For boxes with volume mounts (spare shared-folder slots)">
                    with volumes ·{' '}
                  </span>
                )}
                <span className="text-xs text-ink-400">
                  size {t.size} · {t.vcpu_count} vCPU · {t.memory_mib} MiB · {t.disk_gib} GiB
                </span>
                <div className="font-mono text-[11px] text-ink-400">{t.template_id}</div>
              </div>
              <ConfirmButton
                onConfirm={() => del.mutate(t.template_id)}
                busy={del.isPending && del.variables === t.template_id}
                disabled={t.boxes > 0 || t.state === 'building'}
                confirmLabel="Delete?"
              >
                Delete
              </ConfirmButton>
            </div>
            <div className="mt-1 flex flex-wrap items-center gap-3 text-xs">
              <span className={STATE_STYLE[t.state] ?? ''} data-testid="template-state">
                {t.state}
                {t.state === 'building' && t.progress ? ` · ${t.progress.phase} ${Math.round(t.progress.percent)}%` : ''}
              </span>
              {t.state === 'building' && t.progress && (
                <span className="h-1.5 w-24 overflow-hidden rounded bg-ink-800">
                  <span className="block h-full bg-amber-300" style={{ width: `${t.progress.percent}%` }} />
                </span>
              )}
              <span className="text-ink-400">{formatBytes(t.bytes)}</span>
              <span className="text-ink-400" data-testid="template-boxes">
                {t.boxes} box{t.boxes === 1 ? '' : 'es'}
              </span>
              {t.warm_clones > 0 && (
                <span className="text-ink-400" title="Clones restored and warmed ahead of need: the next create takes one in milliseconds">
                  {t.warm_clones} warm
                </span>
              )}
              {t.restore_spares > 0 && (
                <span className="text-ink-400" title="QEMUs started ahead: the next resume, fork or create of its boxes skips starting one">
                  {t.restore_spares} spare
                </span>
              )}
              {t.built_at && (
                <span className="text-ink-400">
                  built <Ago iso={t.built_at} />
                </span>
              )}
            </div>
            {t.error && <div className="mt-1 text-xs text-red-400">{t.error}</div>}
          </li>
        ))}
      </ul>
    </section>
  );
}
