import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { errorMessage } from '../../api/client.js';
import { decodeBase64, resizeExec, runExec, StdinWriter } from '../../api/exec-stream.js';

const SHELL = 'if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi';

type ShellState = 'connecting' | 'open' | 'closed';

/**
 * A box's shell lives here, outside React: switching tabs or views unmounts the panel but
 * keeps the terminal (scrollback) and its exec attached; the panel re-attaches the same
 * element when it comes back. One shell per box; "New shell" replaces it, "Close" ends it.
 */
export interface ShellSession {
  boxId: string;
  term: Terminal;
  /** The element xterm renders into, moved between panel mounts. */
  element: HTMLDivElement;
  state: ShellState;
  fit(): void;
  close(): void;
  subscribe(fn: () => void): () => void;
}

const sessions = new Map<string, ShellSession>();

export const shellFor = (boxId: string) => sessions.get(boxId);

export function openShell(boxId: string): ShellSession {
  sessions.get(boxId)?.close();
  const element = document.createElement('div');
  element.className = 'h-full w-full';
  const term = new Terminal({
    fontFamily: 'JetBrains Mono, DejaVu Sans Mono, Menlo, monospace',
    fontSize: 13,
    cursorBlink: true,
    theme: { background: '#07090e', foreground: '#e3e8f4', cursor: '#3fdcaa', selectionBackground: '#17c08e55' },
  });
  const fitAddon = new FitAddon();
  term.loadAddon(fitAddon);
  const listeners = new Set<() => void>();
  const abort = new AbortController();
  let execId: string | null = null;
  let stdin: StdinWriter | null = null;
  let opened = false;
  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  const session: ShellSession = {
    boxId,
    term,
    element,
    state: 'connecting',
    fit() {
      if (!element.isConnected) return;
      if (!opened) {
        term.open(element);
        opened = true;
      }
      fitAddon.fit();
    },
    close() {
      abort.abort();
      clearTimeout(resizeTimer);
      term.dispose();
      element.remove();
      if (sessions.get(boxId) === session) sessions.delete(boxId);
      set('closed');
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
  const set = (s: ShellState) => {
    session.state = s;
    listeners.forEach((l) => l());
  };
  sessions.set(boxId, session);
  term.onData((d) => stdin?.write(d));
  term.onResize(({ cols, rows }) => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => execId && void resizeExec(boxId, execId, cols, rows).catch(() => {}), 150);
  });
  // The exec starts once the panel has placed the element (so the tty has its real size).
  queueMicrotask(() => {
    session.fit();
    runExec(
      boxId,
      { command: SHELL, tty: { cols: term.cols, rows: term.rows }, open_stdin: true, env: { TERM: 'xterm-256color' } },
      (e) => {
        if (e.type === 'started') {
          execId = e.exec_id;
          stdin = new StdinWriter(boxId, e.exec_id, (err) => term.write(`\r\n\x1b[31m[stdin: ${errorMessage(err)}]\x1b[0m\r\n`));
          set('open');
        } else if (e.type === 'stdout' || e.type === 'stderr') term.write(decodeBase64(e.data));
        else if (e.type === 'exit') {
          stdin = null; // the process is gone: keys no longer go anywhere
          term.write(`\r\n\x1b[90m[exited: ${e.status}${e.return_code !== null ? `, code ${e.return_code}` : ''}; open a new shell to continue]\x1b[0m\r\n`);
        } else if (e.type === 'error') {
          stdin = null;
          term.write(`\r\n\x1b[31m[${e.code}: ${e.message}]\x1b[0m\r\n`);
        }
      },
      abort.signal,
    )
      .catch((e: unknown) => {
        if (!abort.signal.aborted) term.write(`\r\n\x1b[31m${errorMessage(e)}\x1b[0m\r\n`);
      })
      .finally(() => !abort.signal.aborted && set('closed'));
  });
  return session;
}
