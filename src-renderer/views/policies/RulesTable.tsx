import { useState } from 'react';
import { Button } from '../../ui/Button.js';

type Entry = { rules?: unknown[]; tls?: string; ports?: unknown[] } & Record<string, unknown>;
type Doc = Record<string, Entry>;

const isDoc = (d: unknown): d is Doc =>
  typeof d === 'object' && d !== null && !Array.isArray(d) && Object.values(d).every((v) => typeof v === 'object' && v !== null);

/** One rule in a few words: what it matches and what it does. */
function ruleWords(r: unknown): string {
  const x = (r ?? {}) as {
    match?: { method?: string | string[]; path?: { prefix?: string; exact?: string } };
    respond?: { status?: number };
    request?: unknown;
  };
  const m = x.match?.method ? [x.match.method].flat().join('|') : 'any method';
  const p = x.match?.path?.prefix ? ` ${x.match.path.prefix}*` : x.match?.path?.exact ? ` ${x.match.path.exact}` : '';
  const act = x.respond ? `answer ${x.respond.status ?? ''}` : x.request ? 'allow, set headers' : 'allow';
  return `${m}${p} → ${act}`;
}

/**
 * The policy as a table beside its JSON: one row per host pattern with its rules in words,
 * TLS mode and ports; adding, renaming and removing hosts and changing TLS edit the same
 * document the JSON editor shows (each change rewrites that text).
 */
export function RulesTable({ doc, onChange }: { doc: unknown; onChange: (d: Doc) => void }) {
  const [host, setHost] = useState('');
  if (!isDoc(doc))
    return (
      <p className="text-xs text-ink-400" data-testid="rules-table-off">
        Fix the JSON to see it as a table.
      </p>
    );
  const hosts = Object.keys(doc);
  const rename = (from: string, to: string) => {
    if (!to || to === from || to in doc) return;
    onChange(Object.fromEntries(Object.entries(doc).map(([k, v]) => [k === from ? to : k, v])));
  };
  return (
    <div className="space-y-2" data-testid="rules-table">
      <table className="table text-xs">
        <thead>
          <tr>
            <th>Host</th>
            <th>Rules (first match wins)</th>
            <th>TLS</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {hosts.map((h) => {
            const e = doc[h]!;
            const rules = Array.isArray(e.rules) ? e.rules : [];
            return (
              <tr key={h} data-testid="rules-row" data-host={h}>
                <td>
                  <input
                    className="input w-40 py-0.5 font-mono text-xs"
                    defaultValue={h}
                    aria-label={`Host pattern ${h}`}
                    onBlur={(ev) => rename(h, ev.target.value.trim())}
                    onKeyDown={(ev) => ev.key === 'Enter' && (ev.preventDefault(), rename(h, ev.currentTarget.value.trim()))}
                  />
                </td>
                <td className="text-ink-300">
                  {rules.length === 0 ? 'no rules: everything allowed' : rules.map((r, i) => <div key={i}>{`${i}. ${ruleWords(r)}`}</div>)}
                  {Array.isArray(e.ports) && <div className="text-ink-400">ports {e.ports.join(', ')}</div>}
                </td>
                <td>
                  <select
                    className="input py-0.5 text-xs"
                    value={e.tls ?? 'intercept'}
                    aria-label={`TLS of ${h}`}
                    data-testid="rules-tls"
                    onChange={(ev) => {
                      const { tls: _t, ...rest } = e;
                      onChange({ ...doc, [h]: ev.target.value === 'passthrough' ? { ...rest, tls: 'passthrough' } : rest });
                    }}
                  >
                    <option value="intercept">intercept</option>
                    <option value="passthrough">passthrough</option>
                  </select>
                </td>
                <td className="text-right">
                  <Button
                    small
                    variant="ghost"
                    data-testid="rules-remove"
                    onClick={() => onChange(Object.fromEntries(Object.entries(doc).filter(([k]) => k !== h)))}
                  >
                    Remove
                  </Button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div className="flex gap-2">
        <input
          className="input font-mono text-xs"
          placeholder="api.example.com or *.example.com"
          value={host}
          onChange={(e) => setHost(e.target.value.trim())}
          data-testid="rules-new-host"
          aria-label="New host pattern"
        />
        <Button
          small
          disabled={!host || host in doc}
          data-testid="rules-add"
          onClick={() => {
            onChange({ ...doc, [host]: { rules: [] } });
            setHost('');
          }}
        >
          Allow host
        </Button>
      </div>
    </div>
  );
}
