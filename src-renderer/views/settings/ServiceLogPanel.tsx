import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { LogLevel, ServiceLogEntry } from '@box/contract/service-admin';
import { api, apiUrl } from '../../api/client.js';

/** A line's fields as small chips after its text; a click searches for that value (e.g. every line of one box). */
function Fields({ fields, onPick }: { fields: NonNullable<ServiceLogEntry['fields']>; onPick: (v: string) => void }) {
  return (
    <span className="ml-2 inline-flex flex-wrap gap-1 align-middle" data-testid="log-fields">
      {Object.entries(fields).map(([k, v]) => (
        <button
          key={k}
          type="button"
          className="rounded bg-ink-800 px-1 text-[10.5px] text-ink-300 hover:bg-ink-700 focus:outline-none focus-visible:ring-1 focus-visible:ring-sky-400"
          title={`Show the lines that mention ${String(v)}`}
          onClick={() => onPick(String(v))}
          data-testid="log-field"
        >
          <span className="text-ink-500">{k}=</span>
          {String(v)}
        </button>
      ))}
    </span>
  );
}

/** Entries the view keeps (the service keeps 5000 of this run, and a file of older runs). */
const KEEP = 1000;
const LEVEL_CLASS: Record<LogLevel, string> = { info: 'text-ink-300', warn: 'text-amber-300', error: 'text-rose-300' };

/**
 * The service's own log, live (`GET /v1/service/log?stream=1`): the newest 200 entries at
 * the chosen level, then each new one. Changing the level or the search reconnects with
 * the filter applied by the service. The log file (older runs too) is named below.
 */
export function ServiceLogPanel() {
  const [level, setLevel] = useState<LogLevel>('info');
  const [search, setSearch] = useState('');
  const [needle, setNeedle] = useState('');
  const [rows, setRows] = useState<ServiceLogEntry[]>([]);
  const [state, setState] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  const [file, setFile] = useState('');
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const t = setTimeout(() => setNeedle(search.trim()), 300);
    return () => clearTimeout(t);
  }, [search]);

  useEffect(() => {
    void api<{ file: string }>('/v1/service/log', { query: { limit: 1 } }).then(
      (p) => setFile(p.file),
      () => {},
    );
  }, []);

  useEffect(() => {
    setRows([]);
    setState('connecting');
    const es = new EventSource(apiUrl('/v1/service/log', { stream: 1, limit: 200, level, search: needle }));
    es.onopen = () => {
      setRows([]); // a reconnect sends the backlog again
      setState('live');
    };
    es.onerror = () => setState('reconnecting');
    es.addEventListener('entry', (ev) => {
      const e = JSON.parse((ev as MessageEvent<string>).data) as ServiceLogEntry;
      setRows((cur) => [...cur, e].slice(-KEEP));
    });
    return () => es.close();
  }, [level, needle]);

  useLayoutEffect(() => {
    const el = box.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight;
  }, [rows]);

  return (
    <section className="panel p-4" id="logs" data-testid="service-log">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h2 className="font-semibold">Service log</h2>
        <div className="flex flex-wrap items-center gap-2 text-xs">
          <label className="flex items-center gap-1">
            Level
            <select className="input py-1 text-xs" value={level} onChange={(e) => setLevel(e.target.value as LogLevel)} data-testid="log-level">
              <option value="info">all</option>
              <option value="warn">warnings and errors</option>
              <option value="error">errors</option>
            </select>
          </label>
          <input
            className="input w-40 py-1 text-xs"
            placeholder="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            data-testid="log-search"
            aria-label="Search the log"
          />
          <span data-testid="log-state" className={state === 'live' ? 'text-emerald-300' : 'text-amber-300'}>
            {state === 'live' ? '● live' : state === 'connecting' ? 'connecting…' : 'reconnecting…'}
          </span>
        </div>
      </div>
      <div ref={box} className="h-72 overflow-auto rounded-md bg-ink-950 p-2 font-mono text-[11.5px] leading-snug" data-testid="log-entries">
        {rows.length === 0 && <div className="text-ink-400">{state === 'live' ? 'Nothing logged at this level yet.' : ''}</div>}
        {rows.map((e) => (
          <div key={e.seq} className={`whitespace-pre-wrap break-all ${LEVEL_CLASS[e.level]}`} data-testid="log-entry" data-level={e.level}>
            <span className="text-ink-500">{new Date(e.at).toLocaleTimeString()}</span> <span className="uppercase">{e.level}</span> {e.message}
            {e.fields && <Fields fields={e.fields} onPick={setSearch} />}
          </div>
        ))}
      </div>
      {file && (
        <p className="mt-2 text-xs text-ink-400">
          This run, from memory. Older runs: <code data-testid="log-file">{file}</code> · <code>npx box logs -f</code>
        </p>
      )}
    </section>
  );
}
