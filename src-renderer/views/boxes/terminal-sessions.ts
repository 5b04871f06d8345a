import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { ApiError, errorMessage } from '../../api/client.js';
import { decodeBase64, resizeExec, runExec, StdinWriter } from '../../api/exec-stream.js';
import { forgetShell, loadScrollback, rememberShell, ScrollbackLog, storedShell, type StoredShell } from './terminal-store.js';

const SHELL = 'if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi';

/** connecting → open; ended: the shell exited or the box is gone (its scrollback stays, read-only); closed: disposed. */
type ShellState = 'connecting' | 'open' | 'ended' | 'closed';

/**
 * A box's shell lives here, outside React: switching tabs or views unmounts the panel but
 * keeps the terminal (scrollback) and its exec attached; the panel re-attaches the same
 * element when it comes back. A page reload re-attaches too: the shell's exec was started
 * with an idempotency key kept in this browser, and the same request again replays its
 * output from the start and streams on (the service keeps 4 MiB of it). The scrollback is
 * also kept in this browser, so a shell whose box was terminated still shows it, read-only.
 * One shell per box; "New shell" replaces it, "Close shell" ends it and forgets it.
 */
export interface ShellSession {
  boxId: string;
  term: Terminal;
  /** The element xterm renders into, moved between panel mounts. */
  element: HTMLDivElement;
  state: ShellState;
  /** Why it ended, when it did. */
  reason: string;
  /** True when this session re-attached to a shell started before (a page reload). */
  reattached: boolean;
  fit(): void;
  /** Stops using the shell: the box terminated (or it exited); keys no longer go anywhere, the text stays. */
  end(reason: string): void;
  close(): void;
  subscribe(fn: () => void): () => void;
}

const sessions = new Map<string, ShellSession>();

/**
 * Set when this page is going away (reload, navigation): its exec streams then break with a
 * plain "network error" while the shells go on running in the service. That is not the end
 * of a shell, and must not be remembered as one: the next load re-attaches to it.
 */
let unloading = false;
if (typeof window !== 'undefined') window.addEventListener('pagehide', () => (unloading = true));

export const shellFor = (boxId: string) => sessions.get(boxId);

/** A shell open (or being opened) in this box, in this page or in an earlier load of it. */
export const hasOpenShell = (boxId: string) => {
  const s = sessions.get(boxId);
  return s ? s.state === 'open' || s.state === 'connecting' : storedShell(boxId)?.ended === false;
};

function newTerminal(readOnly: boolean) {
  const element = document.createElement('div');
  element.className = 'h-full w-full';
  const term = new Terminal({
    fontFamily: 'JetBrains Mono, DejaVu Sans Mono, Menlo, monospace',
    fontSize: 13,
    cursorBlink: !readOnly,
    disableStdin: readOnly,
    scrollback: 5000,
    theme: { background: '#07090e', foreground: '#e3e8f4', cursor: '#3fdcaa', selectionBackground: '#17c08e55' },
  });
  const fitAddon = new FitAddon();
  term.loadAddon(fitAddon);
  return { element, term, fitAddon };
}

function makeSession(boxId: string, readOnly: boolean, reattached: boolean) {
  const { element, term, fitAddon } = newTerminal(readOnly);
  const listeners = new Set<() => void>();
  let opened = false;
  const session: ShellSession = {
    boxId,
    term,
    element,
    state: readOnly ? 'ended' : 'connecting',
    reason: '',
    reattached,
    fit() {
      if (!element.isConnected) return;
      if (!opened) {
        term.open(element);
        opened = true;
      }
      fitAddon.fit();
    },
    end(reason) {
      if (session.state === 'ended' || session.state === 'closed') return;
      session.reason = reason;
      term.options.disableStdin = true;
      term.options.cursorBlink = false;
      set('ended');
    },
    close() {
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
  return { session, set };
}

/** The scrollback of an ended shell, shown read-only (after a reload, e.g. of a terminated box). */
export function showSavedShell(boxId: string): ShellSession | undefined {
  const saved = storedShell(boxId);
  const text = loadScrollback(boxId);
  if (!saved || text === null) return undefined;
  sessions.get(boxId)?.close();
  const { session } = makeSession(boxId, true, true);
  session.reason = saved.endReason ?? 'The shell ended.';
  sessions.set(boxId, session);
  queueMicrotask(() => {
    session.fit();
    session.term.write(text);
  });
  return session;
}

/** Opens a new shell (`stored` absent) or re-attaches to the one this browser opened before. */
export function openShell(boxId: string, stored?: StoredShell): ShellSession {
  const prior = sessions.get(boxId);
  if (prior) {
    prior.end('replaced by a new shell');
    prior.close();
  }
  if (!stored) forgetShell(boxId);
  const { session, set } = makeSession(boxId, false, !!stored);
  const { term } = session;
  const abort = new AbortController();
  const log = new ScrollbackLog(boxId);
  let execId: string | null = stored?.execId ?? null;
  let stdin: StdinWriter | null = null;
  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  const key = stored?.key ?? `shell-${crypto.randomUUID()}`;
  let failure = '';
  const write = (data: string | Uint8Array) => {
    term.write(data);
    log.add(data);
  };
  const baseEnd = session.end.bind(session);
  session.end = (reason) => {
    if (session.state === 'ended' || session.state === 'closed') return;
    abort.abort();
    stdin = null;
    write(`\r\n\x1b[90m[${reason}; the scrollback stays, read-only]\x1b[0m\r\n`);
    log.flush();
    rememberShell(boxId, { key, execId, ended: true, endReason: reason });
    baseEnd(reason);
  };
  const baseClose = session.close.bind(session);
  session.close = () => {
    abort.abort();
    clearTimeout(resizeTimer);
    if (sessions.get(boxId) === session) forgetShell(boxId);
    baseClose();
  };
  sessions.set(boxId, session);
  term.onData((d) => stdin?.write(d));
  term.onResize(({ cols, rows }) => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => execId && void resizeExec(boxId, execId, cols, rows).catch(() => {}), 150);
  });
  // The exec starts once the panel has placed the element (so the tty has its real size).
  // A re-attach that meets a network error (the old page's stream may still be closing) tries once more.
  const attach = (tries: number): Promise<void> =>
    runExec(
      boxId,
      { command: SHELL, tty: { cols: term.cols, rows: term.rows }, open_stdin: true, env: { TERM: 'xterm-256color' }, idempotency_key: key },
      (e) => {
        if (e.type === 'started') {
          execId = e.exec_id;
          rememberShell(boxId, { key, execId, ended: false });
          // a re-attached shell's keys continue at the offset the service has accepted so far
          stdin = new StdinWriter(boxId, e.exec_id, (err) => term.write(`\r\n\x1b[31m[stdin: ${errorMessage(err)}]\x1b[0m\r\n`), !!stored);
          if (stored) void resizeExec(boxId, e.exec_id, term.cols, term.rows).catch(() => {});
          set('open');
        } else if (e.type === 'stdout' || e.type === 'stderr') write(decodeBase64(e.data));
        else if (e.type === 'exit') {
          stdin = null; // the process is gone: keys no longer go anywhere
          write(`\r\n\x1b[90m[exited: ${e.status}${e.return_code !== null ? `, code ${e.return_code}` : ''}; open a new shell to continue]\x1b[0m\r\n`);
        } else if (e.type === 'error') {
          stdin = null;
          write(`\r\n\x1b[31m[${e.code}: ${e.message}]\x1b[0m\r\n`);
        }
      },
      abort.signal,
    ).catch(async (e: unknown) => {
      if (!stored || tries <= 0 || abort.signal.aborted || e instanceof ApiError) throw e;
      await new Promise((r) => setTimeout(r, 1000));
      return attach(tries - 1);
    });
  queueMicrotask(() => {
    session.fit();
    rememberShell(boxId, { key, execId, ended: false });
    attach(2)
      .catch((e: unknown) => {
        if (abort.signal.aborted || unloading) return;
        // A shell from before a reload that the service no longer has: keep what this browser saved.
        if (stored && e instanceof ApiError && e.status === 404) {
          const text = loadScrollback(boxId);
          if (text) write(text);
          session.end('the shell is gone from the service (it ended, or the service restarted)');
          return;
        }
        failure = errorMessage(e);
        write(`\r\n\x1b[31m${failure}\x1b[0m\r\n`);
      })
      .finally(() => {
        if (!abort.signal.aborted && !unloading) session.end(failure ? `the connection failed (${failure})` : 'the shell ended');
      });
  });
  return session;
}
