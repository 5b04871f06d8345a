import { useServiceUp } from '../api/connection.js';
import { useStatus, useWhoami } from '../api/hooks/identity.js';
import { VIEWS, type ViewId } from './nav.js';
import { href } from './router.js';
import { KEY_HINT } from './shortcuts.js';
import { ServiceSwitcher } from './ServiceSwitcher.js';
import { ThemeSwitch } from './ThemeSwitch.js';

export function Sidebar({ current, onPalette }: { current: ViewId; onPalette: () => void }) {
  const who = useWhoami();
  const status = useStatus();
  // Down wins over the last answer: the status query keeps its data while paused.
  const up = useServiceUp();
  const ok = up && status.isSuccess;
  const bad = !up || status.isError;
  return (
    <nav
      className="sticky top-0 flex h-screen w-14 shrink-0 flex-col self-start border-r border-ink-800 bg-ink-950 lg:w-56"
      aria-label="Views"
      data-testid="sidebar"
    >
      <div className="flex items-center gap-2 px-3.5 pt-4 pb-5 lg:px-4">
        <div className="grid h-7 w-7 place-items-center rounded-md bg-gradient-to-br from-accent-400 to-accent-600 font-mono text-sm font-black text-ink-950">
          b
        </div>
        <div className="hidden lg:block">
          <div className="text-sm font-semibold leading-tight">Box Desktop</div>
          <div className="text-[11px] text-ink-400">{who.data?.org_name ?? '…'}</div>
        </div>
      </div>
      <ServiceSwitcher />
      <ul className="flex-1 space-y-0.5 px-2">
        {VIEWS.map((v, i) => {
          const active = v.id === current;
          return (
            <li key={v.id}>
              <a
                href={href([v.id])}
                data-testid={`nav-${v.id}`}
                aria-current={active ? 'page' : undefined}
                title={i < 10 ? `${v.label} (${KEY_HINT.alt}${i === 9 ? 0 : i + 1})` : `${v.label} (g ${v.key})`}
                className={`group flex items-center gap-2.5 rounded-md px-2.5 py-1.5 transition-colors ${active ? 'bg-ink-800 text-ink-100' : 'text-ink-400 hover:bg-ink-900 hover:text-ink-100'}`}
              >
                <span className={`w-4 text-center ${active ? 'text-accent-400' : ''}`} aria-hidden>
                  {v.id === 'secrets' ? <KeyIcon /> : v.icon}
                </span>
                <span className="hidden flex-1 lg:inline">{v.label}</span>
                <kbd className="hidden font-mono text-[10px] text-ink-400 group-hover:text-ink-300 lg:inline" data-testid="nav-hint">
                  {i < 10 ? `${KEY_HINT.alt}${i === 9 ? 0 : i + 1}` : `g ${v.key}`}
                </kbd>
              </a>
            </li>
          );
        })}
      </ul>
      <div className="space-y-2 border-t border-ink-800 px-2 py-3 text-[11px] text-ink-400 lg:px-3">
        <button
          type="button"
          onClick={onPalette}
          className="flex w-full items-center justify-between rounded-md border border-ink-800 px-2 py-1 hover:border-ink-600 hover:text-ink-100"
        >
          <span className="hidden lg:inline">Command palette</span>
          <span className="mx-auto lg:hidden" aria-label="Command palette">
            ⌘
          </span>
          <kbd className="hidden font-mono lg:inline" data-testid="palette-hint">
            {KEY_HINT.mod}K
          </kbd>
        </button>
        <ThemeSwitch />
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
          <span className={`h-1.5 w-1.5 shrink-0 rounded-full ${ok ? 'bg-accent-400' : bad ? 'bg-rose-400' : 'bg-ink-600'}`} />
          <span className="hidden lg:inline">{ok ? `service ${status.data?.version}` : bad ? 'service unreachable' : 'connecting…'}</span>
          <span className="sr-only lg:hidden">{ok ? 'service' : bad ? 'service unreachable' : ''}</span>
        </div>
      </div>
    </nav>
  );
}

/** A key (the Secrets view): an SVG, since no common font has U+26BF "⚿". */
function KeyIcon() {
  return (
    <svg viewBox="0 0 16 16" className="inline h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="1.6" data-testid="icon-secrets">
      <circle cx="5" cy="8" r="3" />
      <path d="M8 8h7M12.5 8v2.5M14.5 8v2" strokeLinecap="round" />
    </svg>
  );
}
