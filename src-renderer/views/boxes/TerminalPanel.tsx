import { useQuery } from '@tanstack/react-query';
import { useEffect, useReducer, useRef, useState } from 'react';
import { call } from '../../api/client.js';
import type { Box } from '../../api/hooks/boxes.js';
import { Button } from '../../ui/Button.js';
import { allows } from './lifecycle.js';
import { openShell, shellFor, showSavedShell, type ShellSession } from './terminal-sessions.js';
import { storedShell } from './terminal-store.js';

const gone = (status: Box['status']) => status === 'terminated' || status === 'terminating' || status === 'failed';

/** The session this panel shows on mount: the live one, else a re-attach (after a reload), else saved scrollback. */
function initialSession(box: Box): ShellSession | undefined {
  const live = shellFor(box.box_id);
  if (live) return live;
  const saved = storedShell(box.box_id);
  if (!saved) return undefined;
  if (!saved.ended && allows('exec', box.status)) return openShell(box.box_id, saved);
  return showSavedShell(box.box_id);
}

/**
 * An interactive shell over exec with a tty. The session lives in terminal-sessions.ts, so
 * leaving this tab or view keeps the shell and its scrollback; coming back, or reloading the
 * page, re-attaches it. The box's open shells are listed; when the box is terminated the
 * scrollback stays, read-only.
 */
export function TerminalPanel({ box }: { box: Box }) {
  const host = useRef<HTMLDivElement>(null);
  const [session, setSession] = useState<ShellSession | undefined>(() => initialSession(box));
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const canExec = allows('exec', box.status);
  const state = session?.state ?? 'idle';
  const shells = useQuery({
    queryKey: ['boxes', box.box_id, 'shells'],
    queryFn: async () => (await call('GET /v1/boxes/:box_id/exec', { params: { box_id: box.box_id } })).data.filter((x) => x.tty && x.status === 'running'),
    enabled: canExec,
    refetchInterval: 5000,
  });

  useEffect(() => {
    if (!session || !host.current) return;
    host.current.appendChild(session.element);
    session.fit();
    if (session.state !== 'ended') session.term.focus();
    const observer = new ResizeObserver(() => session.fit());
    observer.observe(host.current);
    const off = session.subscribe(rerender);
    return () => {
      off();
      observer.disconnect();
      session.element.remove(); // detached, not disposed: the shell keeps running
    };
  }, [session]);

  // A terminated box has no shell to keep: the session ends, its text stays (read-only).
  useEffect(() => {
    if (gone(box.status)) shellFor(box.box_id)?.end(`the box was ${box.status === 'failed' ? 'lost (failed)' : 'terminated'}`);
  }, [box.status, box.box_id]);

  const mine = session && session.state !== 'ended' ? (storedShell(box.box_id)?.execId ?? null) : null;
  return (
    <section className="space-y-2" data-testid="terminal-panel" data-state={state} data-reattached={session?.reattached ? 'true' : 'false'}>
      <div className="flex flex-wrap items-center gap-2">
        <Button
          variant={state === 'open' ? 'secondary' : 'primary'}
          small
          needsService
          disabled={!canExec}
          onClick={() => setSession(openShell(box.box_id))}
          data-testid="terminal-connect"
        >
          {session && state !== 'ended' ? 'New shell' : 'Open shell'}
        </Button>
        {session && (
          <Button small variant="ghost" onClick={() => (session.close(), setSession(undefined))} data-testid="terminal-close">
            {state === 'ended' ? 'Clear scrollback' : 'Close shell'}
          </Button>
        )}
        <span className="text-xs text-ink-400" data-testid="terminal-note">
          {state === 'ended'
            ? `Shell ended: ${session?.reason}. Its scrollback stays here, read-only.`
            : !canExec
              ? `A shell needs the box running or sleeping (it is ${box.status}).`
              : state === 'connecting'
                ? session?.reattached
                  ? 'Re-attaching to the shell that was open…'
                  : 'Connecting… (a sleeping box wakes first)'
                : state === 'open'
                  ? session?.reattached
                    ? 'Re-attached: the shell kept running while the page was away; its output so far is replayed.'
                    : 'Connected. Keys go to the box; the shell stays open when you switch tabs, views or reload.'
                  : 'Runs a login shell with a terminal.'}
        </span>
      </div>
      {canExec && (shells.data?.length ?? 0) > 0 && (
        <p className="text-xs text-ink-400" data-testid="terminal-shells">
          Open shells in this box:{' '}
          {shells.data!.map((x) => (
            <span key={x.exec_id} className="mr-2 font-mono" data-testid="terminal-shell" data-mine={x.exec_id === mine ? 'true' : 'false'}>
              {x.exec_id} (since {new Date(x.started_at).toLocaleTimeString()}
              {x.exec_id === mine ? ', shown here' : ', opened elsewhere'})
            </span>
          ))}
        </p>
      )}
      <div
        className="h-[26rem] overflow-hidden rounded-lg border border-ink-700 bg-ink-950 p-2"
        data-testid="terminal"
        data-readonly={state === 'ended' ? 'true' : 'false'}
      >
        {session ? <div ref={host} className="h-full w-full" /> : <div className="grid h-full place-items-center text-ink-400">No shell open.</div>}
      </div>
    </section>
  );
}
