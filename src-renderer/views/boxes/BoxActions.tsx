import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { call } from '../../api/client.js';
import type { Box } from '../../api/hooks/boxes.js';
import { useBoxAction } from '../../api/hooks/boxes.js';
import { Button } from '../../ui/Button.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { href, navigate } from '../../app/router.js';
import { SERVICE_DOWN_HINT, useServiceUp } from '../../api/connection.js';
import { ErrorNotice } from '../../ui/states.js';
import { toast } from '../../ui/toast.js';
import { ACTIONS, actionEnabled } from './lifecycle.js';
import { hasOpenShell, shellFor } from './terminal-sessions.js';

/** From a box's own page, terminating goes back to the list (the page has nothing left to do). */
function terminated(box: Box, compact?: boolean) {
  shellFor(box.box_id)?.end('the box was terminated');
  toast(`Box ${box.name} terminated. Its checkpoints can still start new boxes.`);
  if (!compact) navigate(['boxes']);
}

/** What the second click confirms: operations that interrupt what runs in the box. */
export const CONFIRM: Partial<Record<(typeof ACTIONS)[number]['op'], string>> = {
  sleep: 'Sleep? (wakes on use)',
  reboot: 'Reboot? (processes restart)',
  terminate: 'Terminate?',
};

/** What confirming does, shown in the confirmation popover. */
const CONSEQUENCE: Partial<Record<(typeof ACTIONS)[number]['op'], string>> = {
  sleep: 'The box stops now (open shells close). It wakes by itself on exec, files, ingress or cron.',
  reboot: 'The guest restarts: every process in it stops; its disk is kept.',
  terminate: 'The box stops and is deleted with its disk. Its checkpoints stay and can start new boxes.',
};

/** Said before terminating a box with a shell open in this browser. */
const SHELL_OPEN = ' A shell is open in it (Terminal tab): it ends too; its scrollback stays visible, read-only.';

/**
 * Lifecycle buttons, each disabled (with the reason as a tooltip) where the status forbids
 * it. Sleep, Reboot and Terminate ask for a second click. `compact` (a list row): the
 * allowed ones in an "Actions" menu, so a narrow window still reaches all of them.
 */
export function BoxActions({ box, compact }: { box: Box; compact?: boolean }) {
  if (compact) return <BoxActionsMenu box={box} />;
  return <ActionButtons box={box} />;
}

/** Sleep's undo: the toast wakes the box again (resume), for 10 s. */
function sleptToast(box: Box, refresh: () => void) {
  toast(`${box.name} is asleep (it wakes on exec, files, ingress or cron).`, 'info', 10_000, {
    label: 'Undo',
    run: () =>
      void call('POST /v1/boxes/:box_id/resume', { params: { box_id: box.box_id } }).then(
        () => (toast(`${box.name} is awake again`, 'ok', 3000), refresh()),
        (e: Error) => toast(`Waking ${box.name} failed: ${e.message}`, 'error'),
      ),
  });
}

function ActionButtons({ box, inMenu, onDone }: { box: Box; inMenu?: boolean; onDone?: () => void }) {
  const act = useBoxAction();
  const qc = useQueryClient();
  const up = useServiceUp();
  const busy = (op: string) => act.isPending && act.variables?.action === op;
  const run = (op: (typeof ACTIONS)[number]['op']) =>
    act.mutate(
      { id: box.box_id, action: op },
      {
        onSuccess: () => {
          if (op === 'terminate') terminated(box, inMenu);
          else if (op === 'sleep') sleptToast(box, () => void qc.invalidateQueries({ queryKey: ['boxes'] }));
          else toast(`${box.name}: ${op} done`, 'info', 3000);
          onDone?.();
        },
      },
    );
  return (
    <div className={`inline-flex flex-col gap-1 ${inMenu ? 'items-stretch' : 'items-end'}`}>
      <div className={inMenu ? 'flex flex-col items-stretch gap-0.5' : 'inline-flex flex-wrap items-center justify-end gap-1'}>
        {ACTIONS.filter((a) => !inMenu || actionEnabled(a.op, box.status)).map((a) => {
          const enabled = actionEnabled(a.op, box.status);
          const title = !up ? SERVICE_DOWN_HINT : enabled ? a.hint : `Not while the box is ${box.status.replace(/_/g, ' ')}`;
          const confirm = CONFIRM[a.op];
          return (
            <span key={a.op} title={title} className={inMenu ? 'flex [&>button]:w-full [&>span]:flex-1 [&>span>button]:w-full' : ''}>
              {confirm ? (
                <ConfirmButton
                  disabled={!enabled || act.isPending}
                  busy={busy(a.op)}
                  testId={`action-${a.op}`}
                  confirmLabel={confirm}
                  consequence={`${box.name}: ${CONSEQUENCE[a.op]}${a.op === 'terminate' && hasOpenShell(box.box_id) ? SHELL_OPEN : ''}`}
                  confirmText={a.label}
                  onConfirm={() => run(a.op)}
                >
                  {a.label}
                </ConfirmButton>
              ) : (
                <Button
                  small
                  variant="ghost"
                  needsService
                  disabled={!enabled || act.isPending}
                  busy={busy(a.op)}
                  data-testid={`action-${a.op}`}
                  onClick={() => run(a.op)}
                >
                  {a.label}
                </Button>
              )}
            </span>
          );
        })}
      </div>
      {act.error && <ErrorNotice error={act.error} compact />}
    </div>
  );
}

function BoxActionsMenu({ box }: { box: Box }) {
  const [open, setOpen] = useState(false);
  const [at, setAt] = useState<React.CSSProperties>({});
  const ref = useRef<HTMLDivElement>(null);
  // Fixed, beside the button: the table's scroll container would clip an absolute menu.
  const toggle = (e: React.MouseEvent<HTMLButtonElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const below = window.innerHeight - r.bottom > 260;
    setAt({ position: 'fixed', right: window.innerWidth - r.right, ...(below ? { top: r.bottom + 4 } : { bottom: window.innerHeight - r.top + 4 }) });
    setOpen(!open);
  };
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => ref.current && !ref.current.contains(e.target as Node) && setOpen(false);
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('mousedown', away);
    document.addEventListener('keydown', esc);
    return () => {
      document.removeEventListener('mousedown', away);
      document.removeEventListener('keydown', esc);
    };
  }, [open]);
  return (
    <div className="relative inline-block text-left" ref={ref}>
      <Button small variant="ghost" aria-haspopup="menu" aria-expanded={open} onClick={toggle} data-testid="row-actions">
        Actions ▾
      </Button>
      {open && (
        <div role="menu" style={at} className="panel z-30 w-52 p-1 shadow-lg shadow-black/30" data-testid="row-actions-menu">
          <a className="block rounded px-2 py-1 text-xs hover:bg-ink-800" href={href(['boxes', box.box_id])} role="menuitem">
            Open
          </a>
          <a className="block rounded px-2 py-1 text-xs hover:bg-ink-800" href={href(['files', box.box_id])} role="menuitem">
            Files
          </a>
          <div className="my-1 border-t border-ink-800" />
          <ActionButtons box={box} inMenu onDone={() => setOpen(false)} />
        </div>
      )}
    </div>
  );
}
