import type { PreparationStage } from '../../../src-server/contract/preparation.js';
import { useStatus } from '../../api/hooks/identity.js';
import { formatDuration } from '../../ui/format.js';

const minutes = (s: number) => (s < 90 ? `${s}s` : `${Math.round(s / 60)} min`);

function timeWords(s: PreparationStage): string {
  if (s.state === 'ready') return 'ready';
  if (s.state === 'failed') return 'failed';
  if (s.eta_seconds === 0) return 'taking longer than its pace so far suggested';
  if (s.eta_seconds !== null) return `about ${minutes(s.eta_seconds)} left`;
  return `usually about ${minutes(s.typical_seconds)} the first time`;
}

/**
 * What the service is still preparing before a box can start (the guest image; a warm
 * template later), with progress and time left. Renders nothing once all is ready,
 * unless `booting` (a create is waiting): then it says the VM itself is booting.
 */
export function PreparationPanel({ booting }: { booting?: boolean }) {
  const status = useStatus(booting);
  const prep = status.data?.preparation;
  const open = prep?.stages.filter((s) => s.state !== 'ready') ?? [];
  if (open.length === 0) {
    if (!booting) return null;
    return (
      <div className="rounded-md border border-ink-700 bg-ink-950 px-3 py-2 text-xs text-ink-300" data-testid="preparation" data-state="booting">
        Booting the VM and waiting for its guest agent{status.data?.accelerator === 'tcg' ? ' (no KVM here: software emulation, up to a minute)' : ''}…
      </div>
    );
  }
  return (
    <div className="space-y-2 rounded-md border border-ink-700 bg-ink-950 px-3 py-2" data-testid="preparation" data-state="preparing">
      <p className="text-xs text-ink-300">Before the first box can start, the service prepares once on this machine:</p>
      {open.map((s) => (
        <div key={s.name} data-testid={`preparation-${s.name}`} data-stage-state={s.state}>
          <div className="flex justify-between gap-2 text-xs">
            <span className="font-medium">{s.label}</span>
            <span className="whitespace-nowrap text-ink-400">
              {s.percent}% · {timeWords(s)}
              {s.started_at && s.state === 'running' ? ` · running ${formatDuration(Math.round((Date.now() - Date.parse(s.started_at)) / 1000))}` : ''}
            </span>
          </div>
          <div
            className="mt-1 h-1.5 overflow-hidden rounded bg-ink-800"
            role="progressbar"
            aria-valuenow={s.percent}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-label={s.label}
          >
            <div
              className={`h-full transition-all ${s.state === 'failed' ? 'bg-rose-500' : 'bg-accent-500'}`}
              style={{ width: `${Math.max(2, s.percent)}%` }}
            />
          </div>
          <div className={`mt-0.5 truncate text-[11px] ${s.state === 'failed' ? 'text-rose-300' : 'text-ink-400'}`} title={s.error ?? s.message}>
            {s.error ?? s.message}
          </div>
        </div>
      ))}
    </div>
  );
}
