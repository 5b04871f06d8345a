import { useStatus, useWhoami } from '../api/hooks/identity.js';
import { VIEWS, type ViewId } from './nav.js';
import { href } from './router.js';
import { KEY_HINT } from './shortcuts.js';

export function Sidebar({ current, onPalette }: { current: ViewId; onPalette: () => void }) {
  const who = useWhoami();
  const status = useStatus();
  return (
    <nav className="sticky top-0 flex h-screen self-start w-56 shrink-0 flex-col border-r border-ink-800 bg-ink-950" aria-label="Views">
      <div className="flex items-center gap-2 px-4 pt-4 pb-5">
        <div className="grid h-7 w-7 place-items-center rounded-md bg-gradient-to-br from-accent-400 to-accent-600 font-mono text-sm font-black text-ink-950">
          b
        </div>
        <div>
          <div className="text-sm font-semibold leading-tight">Box Desktop</div>
          <div className="text-[11px] text-ink-400">{who.data?.org_name ?? '…'}</div>
        </div>
      </div>
      <ul className="flex-1 space-y-0.5 px-2">
        {VIEWS.map((v, i) => {
          const active = v.id === current;
          return (
            <li key={v.id}>
              <a
                href={href([v.id])}
                data-testid={`nav-${v.id}`}
                aria-current={active ? 'page' : undefined}
                className={`group flex items-center gap-2.5 rounded-md px-2.5 py-1.5 transition-colors ${active ? 'bg-ink-800 text-ink-100' : 'text-ink-400 hover:bg-ink-900 hover:text-ink-100'}`}
              >
                <span className={`w-4 text-center ${active ? 'text-accent-400' : ''}`}>{v.icon}</span>
                <span className="flex-1">{v.label}</span>
                <kbd className="font-mono text-[10px] text-ink-600 group-hover:text-ink-400" data-testid="nav-hint">
                  {KEY_HINT.alt}
                  {i + 1}
                </kbd>
              </a>
            </li>
          );
        })}
      </ul>
      <div className="space-y-2 border-t border-ink-800 px-3 py-3 text-[11px] text-ink-400">
        <button
          type="button"
          onClick={onPalette}
          className="flex w-full items-center justify-between rounded-md border border-ink-800 px-2 py-1 hover:border-ink-600 hover:text-ink-100"
        >
          Command palette{' '}
          <kbd className="font-mono" data-testid="palette-hint">
            {KEY_HINT.mod}K
          </kbd>
        </button>
        {status.data?.disk?.low && (
          <div
            role="alert"
            data-testid="disk-low"
            title={status.data.disk.warning}
            className="rounded-md border border-amber-700/60 bg-amber-950/40 px-2 py-1.5 text-amber-200"
          >
            Disk almost full: {Math.floor(status.data.disk.free_bytes / 1024 / 1024)} MiB free. Delete boxes, checkpoints, volumes or images to make room.
          </div>
        )}
        <div className="flex items-center gap-1.5" data-testid="service-status">
          <span className={`h-1.5 w-1.5 rounded-full ${status.isSuccess ? 'bg-accent-400' : status.isError ? 'bg-rose-400' : 'bg-ink-600'}`} />
          {status.isSuccess ? `service ${status.data.version}` : status.isError ? 'service unreachable' : 'connecting…'}
        </div>
      </div>
    </nav>
  );
}
