import { useEffect, useReducer, useRef, useState } from 'react';
import type { Box } from '../../api/hooks/boxes.js';
import { Button } from '../../ui/Button.js';
import { allows } from './lifecycle.js';
import { openShell, shellFor, type ShellSession } from './terminal-sessions.js';

/**
 * An interactive shell over exec with a tty. The session lives in terminal-sessions.ts, so
 * leaving this tab or view keeps the shell and its scrollback; coming back re-attaches it.
 */
export function TerminalPanel({ box }: { box: Box }) {
  const host = useRef<HTMLDivElement>(null);
  const [session, setSession] = useState<ShellSession | undefined>(() => shellFor(box.box_id));
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const canExec = allows('exec', box.status);
  const state = session?.state ?? 'idle';

  useEffect(() => {
    if (!session || !host.current) return;
    host.current.appendChild(session.element);
    session.fit();
    if (session.state !== 'closed') session.term.focus();
    const observer = new ResizeObserver(() => session.fit());
    observer.observe(host.current);
    const off = session.subscribe(rerender);
    return () => {
      off();
      observer.disconnect();
      session.element.remove(); // detached, not disposed: the shell keeps running
    };
  }, [session]);

  // A terminated box has no shell to keep.
  useEffect(() => {
    if (box.status === 'terminated' || box.status === 'terminating') shellFor(box.box_id)?.close();
  }, [box.status, box.box_id]);

  return (
    <section className="space-y-2" data-testid="terminal-panel" data-state={state}>
      <div className="flex items-center gap-2">
        <Button
          variant={state === 'open' ? 'secondary' : 'primary'}
          small
          needsService
          disabled={!canExec}
          onClick={() => setSession(openShell(box.box_id))}
          data-testid="terminal-connect"
        >
          {session ? 'New shell' : 'Open shell'}
        </Button>
        {session && state !== 'closed' && (
          <Button small variant="ghost" onClick={() => (session.close(), setSession(undefined))} data-testid="terminal-close">
            Close shell
          </Button>
        )}
        <span className="text-xs text-ink-400">
          {!canExec
            ? `A shell needs the box running or sleeping (it is ${box.status}).`
            : state === 'connecting'
              ? 'Connecting… (a sleeping box wakes first)'
              : state === 'open'
                ? 'Connected. Keys go to the box; the shell stays open when you switch tabs or views.'
                : state === 'closed'
                  ? 'Session ended.'
                  : 'Runs a login shell with a terminal.'}
        </span>
      </div>
      <div className="h-[26rem] overflow-hidden rounded-lg border border-ink-700 bg-ink-950 p-2" data-testid="terminal">
        {session ? <div ref={host} className="h-full w-full" /> : <div className="grid h-full place-items-center text-ink-400">No shell open.</div>}
      </div>
    </section>
  );
}
