import { useServiceUp } from '../api/connection.js';

const TONES: Record<string, string> = {
  running: 'bg-emerald-400/15 text-emerald-300 ring-emerald-400/30',
  ready: 'bg-emerald-400/15 text-emerald-300 ring-emerald-400/30',
  completed: 'bg-emerald-400/15 text-emerald-300 ring-emerald-400/30',
  succeeded: 'bg-emerald-400/15 text-emerald-300 ring-emerald-400/30',
  creating: 'bg-sky-400/15 text-sky-300 ring-sky-400/30',
  queued: 'bg-sky-400/15 text-sky-300 ring-sky-400/30',
  in_progress: 'bg-sky-400/15 text-sky-300 ring-sky-400/30',
  paused: 'bg-amber-400/15 text-amber-300 ring-amber-400/30',
  sleeping: 'bg-indigo-400/15 text-indigo-300 ring-indigo-400/30',
  terminating: 'bg-zinc-400/15 text-zinc-300 ring-zinc-400/30',
  terminated: 'bg-zinc-500/10 text-zinc-400 ring-zinc-500/20',
  deleted: 'bg-zinc-500/10 text-zinc-400 ring-zinc-500/20',
  incomplete: 'bg-amber-400/15 text-amber-300 ring-amber-400/30',
  failed: 'bg-rose-400/15 text-rose-300 ring-rose-400/30',
  timed_out: 'bg-rose-400/15 text-rose-300 ring-rose-400/30',
  interrupted_restorable: 'bg-orange-400/15 text-orange-300 ring-orange-400/30',
};

/**
 * A state as the service last said it; "unknown" while the service is down (issue 38): a
 * stopped service's last word is not the box's state now.
 */
export function StatusPill({ status: said, testId }: { status: string; testId?: string }) {
  const up = useServiceUp();
  const status = up ? said : 'unknown';
  const tone = TONES[status] ?? 'bg-ink-700 text-ink-300 ring-ink-600';
  const live = status === 'running' || status === 'creating';
  return (
    <span
      data-testid={testId}
      data-status={status}
      title={up ? undefined : `State unknown while the service is stopped (last seen: ${said.replace(/_/g, ' ')})`}
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ring-inset ${tone}`}
    >
      <span className={`h-1.5 w-1.5 rounded-full bg-current ${live ? 'animate-pulse' : ''}`} />
      {status.replace(/_/g, ' ')}
    </span>
  );
}

export function Mono({ children, title }: { children: string; title?: string }) {
  return (
    <code className="rounded bg-ink-950/70 px-1 py-0.5 text-ink-300" title={title ?? children}>
      {children}
    </code>
  );
}
