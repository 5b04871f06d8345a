import type { Box } from '@box/contract/boxes';
import { useBox, useCheckpointsOf } from '../../api/hooks/boxes.js';
import { href, navigate, useRoute } from '../../app/router.js';
import { BoxFiles } from '../files/FilesView.js';
import { Ago } from '../../ui/Ago.js';
import { CopyButton } from '../../ui/CopyButton.js';
import { formatResources, formatTime } from '../../ui/format.js';
import { PolicyName } from '../../ui/names.js';
import { Empty, ErrorNotice, Loading } from '../../ui/states.js';
import { Mono, StatusPill } from '../../ui/StatusPill.js';
import { BoxActions } from './BoxActions.js';
import { BudgetInfo } from './BudgetInfo.js';
import { CodePanel } from './CodePanel.js';
import { ConsolePanel } from './ConsolePanel.js';
import { EgressPanel } from './EgressPanel.js';
import { LineagePanel } from './LineagePanel.js';
import { MetricsPanel } from './MetricsPanel.js';
import { ScreenPanel } from './ScreenPanel.js';
import { TerminalPanel } from './TerminalPanel.js';
import { loadScrollback } from './terminal-store.js';

const SCREEN_TAB = { id: 'screen', label: 'Screen' } as const;
const TABS = [
  { id: 'terminal', label: 'Terminal' },
  { id: 'code', label: 'Code' },
  { id: 'files', label: 'Files' },
  { id: 'console', label: 'Console' },
  { id: 'metrics', label: 'Metrics' },
  { id: 'checkpoints', label: 'Checkpoints & forks' },
  { id: 'egress', label: 'Egress log' },
] as const;

export function BoxDetail({ boxId, tab }: { boxId: string; tab: string }) {
  const box = useBox(boxId);
  if (box.isPending) return <Loading />;
  if (box.error) return <ErrorNotice error={box.error} />;
  const b = box.data;
  return (
    <div data-testid="view-boxes" className="space-y-4">
      <div>
        <a href={href(['boxes'])} className="text-xs text-ink-400 hover:text-ink-100">
          ← Boxes
        </a>
        <div className="mt-1 flex flex-wrap items-center justify-between gap-3">
          <div className="flex items-center gap-3">
            <h1 className="text-lg font-semibold" data-testid="box-title">
              {b.name}
            </h1>
            <StatusPill status={b.status} testId="box-status" />
            <Mono>{b.box_id}</Mono>
          </div>
          <BoxActions box={b} />
        </div>
        {b.error_message && <p className="mt-2 text-rose-300">{b.error_message}</p>}
        {b.status === 'failed' && (
          <p className="mt-1 text-ink-300" data-testid="failed-recovery">
            Its disk is kept:{' '}
            <a className="text-accent-300 hover:underline" href={href(['boxes', b.box_id, 'files'])} data-testid="failed-files">
              browse and save its files
            </a>
            , <strong>Reboot</strong> to start it afresh from that disk, or{' '}
            <a className="text-accent-300 hover:underline" href={href(['boxes', b.box_id, 'checkpoints'])} data-testid="failed-fork">
              fork it from its last checkpoint
            </a>
            .
          </p>
        )}
      </div>
      <dl className="panel grid grid-cols-1 gap-x-6 gap-y-1 p-3 text-xs sm:grid-cols-2 xl:grid-cols-3 2xl:grid-cols-4">
        <Info k="Image" v={b.image} mono />
        <Info k="Resources" v={formatResources(b)} mono />
        <Info k="Started" v={<Ago iso={b.started_at} testId="box-started" />} />
        <Info k="Last start" v={b.last_start ? <span data-testid="box-last-start">{formatStart(b.last_start)}</span> : '—'} />
        <Info
          k="Created"
          v={
            <span title={formatTime(b.created_at)}>
              <Ago iso={b.created_at} testId="box-created" />
            </span>
          }
        />
        <Info k="Visibility" v={b.visibility} />
        <Info k="Ports" v={<PortLinks box={b} />} mono />
        <Info k="Volumes" v={b.volume_mounts.map((m) => m.mount_path).join(', ') || '—'} mono />
        <Info k="Auto sleep" v={b.auto_sleep.automatic ? `after ${b.auto_sleep.min_seconds_before_sleep ?? '?'}s idle` : 'off'} />
        <Info k="Policy" v={b.http_policy_id ? <PolicyName id={b.http_policy_id} /> : 'org default'} />
        <Info k="Wake at" v={b.wake_at ? formatTime(b.wake_at) : '—'} />
        <Info k="Checkpoint gen." v={String(b.checkpoint_generation)} mono />
        <Info k="On checkpoint" v={<OnCheckpoint box={b} />} mono />
        <Info k="Inference budget" v={<BudgetInfo boxId={b.box_id} editable={b.status !== 'terminated'} />} />
        <Info
          k="Cron jobs"
          v={
            <a className="text-accent-300 hover:underline" href={href(['cron'], { box: b.box_id })}>
              this box&apos;s schedules
            </a>
          }
        />
      </dl>
      <nav className="flex gap-1 border-b border-ink-800" role="tablist">
        {(b.image === 'desktop' ? [SCREEN_TAB, ...TABS] : TABS).map((t) => (
          <a
            key={t.id}
            role="tab"
            aria-selected={tab === t.id}
            href={href(['boxes', boxId, t.id])}
            data-testid={`tab-${t.id}`}
            className={`-mb-px border-b-2 px-3 py-2 ${tab === t.id ? 'border-accent-400 text-ink-100' : 'border-transparent text-ink-400 hover:text-ink-100'}`}
          >
            {t.label}
          </a>
        ))}
      </nav>
      {/* a terminated box's terminal: the scrollback of a shell this browser had open in it (read-only), else this */}
      {b.status === 'terminated' && tab === 'terminal' && loadScrollback(boxId) === null ? (
        <Empty title="This box is terminated">Its checkpoints, if any, can still start new boxes.</Empty>
      ) : tab === 'screen' ? (
        <ScreenPanel box={b} />
      ) : tab === 'code' ? (
        <CodePanel box={b} />
      ) : tab === 'files' ? (
        <FilesTab box={b} />
      ) : tab === 'console' ? (
        <ConsolePanel boxId={boxId} />
      ) : tab === 'metrics' ? (
        <MetricsPanel boxId={boxId} />
      ) : tab === 'checkpoints' ? (
        <LineagePanel box={b} />
      ) : tab === 'egress' ? (
        <EgressPanel boxId={boxId} />
      ) : (
        <TerminalPanel box={b} />
      )}
    </div>
  );
}

const FILES_LIVE = new Set(['running', 'sleeping', 'failed']);

/** The Files tab: the box's files (browse, preview, download, drop to upload), the folder in the route's `path`. */
function FilesTab({ box }: { box: Box }) {
  const path = useRoute().params.get('path') ?? undefined;
  if (!FILES_LIVE.has(box.status)) {
    return (
      <Empty title={`${box.name} is ${box.status.replace(/_/g, ' ')}`}>
        {box.status === 'paused' ? 'Resume it to browse its files.' : 'Only a running, sleeping or failed box has files to browse.'}
      </Empty>
    );
  }
  return (
    <section data-testid="box-files">
      {box.status === 'sleeping' && <p className="mb-2 text-xs text-ink-300">Browsing a sleeping box wakes it.</p>}
      {box.status === 'failed' && (
        <p className="mb-2 text-xs text-ink-300" data-testid="files-failed-note">
          Its files are read and written on its stopped disk (the first call starts a maintenance VM, a few seconds).
        </p>
      )}
      <BoxFiles
        boxId={box.box_id}
        path={path ?? (box.status === 'failed' ? '/root' : undefined)}
        go={(p) => navigate(['boxes', box.box_id, 'files'], { path: p })}
      />
    </section>
  );
}

/** Each published port with its ingress URL (the API's `ingress_urls`), a link and a copy button. */
function PortLinks({ box }: { box: Box }) {
  if (box.ingress_urls.length === 0) return <>{box.ingress_ports.join(', ') || '—'}</>;
  return (
    <span className="flex flex-col items-end gap-0.5">
      {box.ingress_urls.map((u) => (
        <span key={u.guest_port} className="inline-flex items-center gap-1" data-testid="port-url" data-port={u.guest_port}>
          <span className="text-ink-400">{u.guest_port}</span>
          <a className="break-all text-accent-300 hover:underline" href={u.url} target="_blank" rel="noreferrer" data-testid="port-link">
            {u.url}
          </a>
          <CopyButton text={u.url} testId="port-copy" />
        </span>
      ))}
    </span>
  );
}

/** The checkpoint the box stands on (the service records it), by name, linking to the lineage. */
function OnCheckpoint({ box }: { box: Box }) {
  const cps = useCheckpointsOf(box);
  if (!box.on_checkpoint_id) return <span data-testid="box-on-checkpoint">—</span>;
  const cp = cps.data?.find((c) => c.checkpoint_id === box.on_checkpoint_id);
  return (
    <a
      className="text-accent-300 hover:underline"
      href={href(['boxes', box.box_id, 'checkpoints'])}
      title={box.on_checkpoint_id}
      data-testid="box-on-checkpoint"
      data-id={box.on_checkpoint_id}
    >
      {cp?.name ?? box.on_checkpoint_id.slice(0, 14)}
    </a>
  );
}

function Info({ k, v, mono }: { k: string; v: React.ReactNode; mono?: boolean }) {
  return (
    <div className="flex min-w-0 justify-between gap-2 border-b border-ink-800/60 py-1">
      <dt className="shrink-0 text-ink-400">{k}</dt>
      <dd className={`min-w-0 text-right break-words ${mono ? 'font-mono' : ''}`}>{v}</dd>
    </div>
  );
}

const START_FROM: Record<string, string> = {
  warm_pool: 'a warm clone',
  template: 'the warm template',
  new_template: 'a template built for it first (first box of this size)',
  saved_state: 'its saved memory',
  checkpoint: 'a checkpoint',
  boot: 'a cold boot',
};

/** "create in 85 ms from a warm clone": how the latest start went (issue 9). */
function formatStart(s: NonNullable<Box['last_start']>): string {
  const ms = s.ms < 10_000 ? `${s.ms} ms` : `${(s.ms / 1000).toFixed(1)} s`;
  return `${s.operation.replace('_', ' ')} in ${ms}${s.from ? ` from ${START_FROM[s.from] ?? s.from}` : ''}`;
}
