import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../api/client.js';
import { decodeBase64, resizeExec, runExec, StdinWriter } from '../../api/exec-stream.js';
import type { Box } from '../../api/hooks/boxes.js';
import { Button } from '../../ui/Button.js';
import { allows } from './lifecycle.js';

const SHELL = 'if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi';

type State = 'idle' | 'connecting' | 'open' | 'closed';

/** An interactive shell over exec with a tty: output from the NDJSON stream, keys to stdin. */
export function TerminalPanel({ box }: { box: Box }) {
  const host = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<State>('idle');
  const [session, setSession] = useState(0);
  const canExec = allows('exec', box.status);

  useEffect(() => {
    if (session === 0 || !host.current) return;
    const term = new Terminal({
      fontFamily: 'JetBrains Mono, DejaVu Sans Mono, Menlo, monospace',
      fontSize: 13,
      cursorBlink: true,
      theme: { background: '#07090e', foreground: '#e3e8f4', cursor: '#3fdcaa', selectionBackground: '#17c08e55' },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(host.current);
    fit.fit();
    term.focus();
    const abort = new AbortController();
    let execId: string | null = null;
    let stdin: StdinWriter | null = null;
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(host.current);
    const onData = term.onData((d) => stdin?.write(d));
    let resizeTimer: ReturnType<typeof setTimeout> | undefined;
    const onResize = term.onResize(({ cols, rows }) => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => execId && void resizeExec(box.box_id, execId, cols, rows).catch(() => {}), 150);
    });
    setState('connecting');
    runExec(
      box.box_id,
      { command: SHELL, tty: { cols: term.cols, rows: term.rows }, open_stdin: true, env: { TERM: 'xterm-256color' } },
      (e) => {
        if (e.type === 'started') {
          execId = e.exec_id;
          stdin = new StdinWriter(box.box_id, e.exec_id, (err) => term.write(`\r\n\x1b[31m[stdin: ${errorMessage(err)}]\x1b[0m\r\n`));
          setState('open');
        } else if (e.type === 'stdout' || e.type === 'stderr') term.write(decodeBase64(e.data));
        else if (e.type === 'exit') {
          stdin = null; // the process is gone: keys no longer go anywhere
          term.write(`\r\n\x1b[90m[exited: ${e.status}${e.return_code !== null ? `, code ${e.return_code}` : ''}; open a new shell to continue]\x1b[0m\r\n`);
        }
        else if (e.type === 'error') {
          stdin = null;
          term.write(`\r\n\x1b[31m[${e.code}: ${e.message}]\x1b[0m\r\n`);
        }
      },
      abort.signal,
    )
      .catch((e: unknown) => {
        if (!abort.signal.aborted) term.write(`\r\n\x1b[31m${errorMessage(e)}\x1b[0m\r\n`);
      })
      .finally(() => !abort.signal.aborted && setState('closed'));
    return () => {
      abort.abort();
      clearTimeout(resizeTimer);
      observer.disconnect();
      onData.dispose();
      onResize.dispose();
      term.dispose();
    };
  }, [session, box.box_id]);

  return (
    <section className="space-y-2" data-testid="terminal-panel" data-state={state}>
      <div className="flex items-center gap-2">
        <Button variant={state === 'open' ? 'secondary' : 'primary'} small disabled={!canExec} onClick={() => setSession((s) => s + 1)} data-testid="terminal-connect">
          {session === 0 ? 'Open shell' : 'New shell'}
        </Button>
        <span className="text-xs text-ink-400">
          {!canExec ? `A shell needs the box running or sleeping (it is ${box.status}).` : state === 'connecting' ? 'Connecting… (a sleeping box wakes first)' : state === 'open' ? 'Connected. Keys go to the box; resize follows the panel.' : state === 'closed' ? 'Session ended.' : 'Runs a login shell with a terminal.'}
        </span>
      </div>
      <div className="h-[26rem] overflow-hidden rounded-lg border border-ink-700 bg-ink-950 p-2" data-testid="terminal">
        {session === 0 ? <div className="grid h-full place-items-center text-ink-400">No shell open.</div> : <div ref={host} className="h-full w-full" />}
      </div>
    </section>
  );
}
