import { useEffect, useRef, useState } from 'react';
import type { PreparationStage } from '@box/contract/preparation';
import { useStatus } from '../../api/hooks/identity.js';
import { formatDuration } from '../../ui/format.js';
import { countdown, expectedStart } from './boot-estimate.js';

const minutes = (s: number) => (s < 90 ? `${s}s` : `${Math.round(s / 60)} min`);

function timeWords(s: PreparationStage, eta: number | null): string {
  if (s.state === 'ready') return 'ready';
  if (s.state === 'failed') return 'failed';
  if (eta === 0) return 'taking longer than its pace so far suggested';
  if (eta !== null) return `about ${minutes(eta)} left`;
  return `usually about ${minutes(s.typical_seconds)} the first time`;
}

const clock = (s: number) => (s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`);

/** Seconds since `since` (ms), ticking once a second while `on`. */
function useElapsed(on: boolean): number {
  const [t0, setT0] = useState<number | null>(null);
  const [, tick] = useState(0);
  useEffect(() => {
    if (!on) return setT0(null);
    setT0(Date.now());
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, [on]);
  return t0 === null ? 0 : Math.floor((Date.now() - t0) / 1000);
}

/** The service's estimate per stage, never shown larger than before (a slower step does not push time left back up). */
function useMonotoneEtas(stages: PreparationStage[]): Record<string, number | null> {
  const shown = useRef<Record<string, number>>({});
  const out: Record<string, number | null> = {};
  for (const s of stages) {
    const prev = shown.current[s.name];
    const eta = s.eta_seconds === null ? (prev ?? null) : prev === undefined ? s.eta_seconds : Math.min(prev, s.eta_seconds);
    if (eta !== null) shown.current[s.name] = eta;
    out[s.name] = eta;
  }
  return out;
}

/** The VM's boot while a create waits: time elapsed, and time left (from earlier starts of this shape) that only counts down. */
function BootProgress({ shape, accelerator }: { shape: string; accelerator: unknown }) {
  const elapsed = useElapsed(true);
  const [expected] = useState(() => expectedStart(shape, accelerator));
  const last = useRef<number | null>(null);
  const left = countdown(expected.seconds, elapsed, last.current);
  last.current = left;
  const percent = Math.min(99, Math.round((elapsed / Math.max(1, elapsed + left)) * 100));
  return (
    <div className="rounded-md border border-ink-700 bg-ink-950 px-3 py-2 text-xs text-ink-300" data-testid="preparation" data-state="booting">
      <p>
        Booting the VM and waiting for its guest agent
        {accelerator === 'tcg' ? ' (no KVM here: software emulation)' : ''}
        {expected.learned ? '.' : '. The first box of this image and size also makes its template (a cold boot, then a snapshot): later ones start faster.'}
      </p>
      <div className="mt-1 flex justify-between gap-2">
        <span data-testid="boot-elapsed" data-seconds={elapsed}>
          {clock(elapsed)} elapsed
        </span>
        <span data-testid="boot-left" data-seconds={left}>
          {left > 0 ? `about ${minutes(left)} left` : 'any moment now (longer than expected)'}
        </span>
      </div>
      <div
        className="mt-1 h-1.5 overflow-hidden rounded bg-ink-800"
        role="progressbar"
        aria-valuenow={percent}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-label="Box start"
      >
        <div className="h-full bg-accent-500 transition-all" style={{ width: `${Math.max(2, percent)}%` }} />
      </div>
    </div>
  );
}

/**
 * What the service is still preparing before a box can start (the guest image; a warm
 * template later), with progress and time left. Renders nothing once all is ready,
 * unless `booting` (a create is waiting): then it says the VM itself is booting.
 */
export function PreparationPanel({ booting, shape = 'default:s' }: { booting?: boolean; shape?: string }) {
  const status = useStatus(booting);
  const prep = status.data?.preparation;
  const open = prep?.stages.filter((s) => s.state !== 'ready') ?? [];
  const etas = useMonotoneEtas(open);
  if (open.length === 0) {
    if (!booting) return null;
    return <BootProgress shape={shape} accelerator={status.data?.accelerator} />;
  }
  return (
    <div className="space-y-2 rounded-md border border-ink-700 bg-ink-950 px-3 py-2" data-testid="preparation" data-state="preparing">
      <p className="text-xs text-ink-300">Before the first box can start, the service prepares once on this machine:</p>
      {open.map((s) => (
        <div key={s.name} data-testid={`preparation-${s.name}`} data-stage-state={s.state}>
          <div className="flex justify-between gap-2 text-xs">
            <span className="font-medium">{s.label}</span>
            <span className="whitespace-nowrap text-ink-400">
              {s.percent}% · {timeWords(s, etas[s.name] ?? null)}
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
