import { formatBytes } from '@box/contract/format';
/** Human output: aligned tables, sizes, ages. Machine output (`--json`) bypasses all of it. */

type Cell = string | number | boolean | null | undefined;

export function table(headers: string[], rows: Cell[][], out: NodeJS.WritableStream = process.stdout) {
  const text = rows.map((r) => r.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  out.write(`${line(headers.map((h) => h.toUpperCase()))}\n`);
  for (const r of text) out.write(`${line(r)}\n`);
  if (rows.length === 0) out.write('(none)\n');
}

/** `key: value` lines for one object. */
export function fields(obj: Record<string, unknown>, out: NodeJS.WritableStream = process.stdout) {
  const keys = Object.keys(obj);
  const w = Math.max(...keys.map((k) => k.length));
  for (const k of keys) {
    const v = obj[k];
    const s = v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    out.write(`${`${k}:`.padEnd(w + 2)}${s}\n`);
  }
}

export function json(value: unknown) {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Sizes in tables: '-' when unknown. */
export const bytes = (n: number | null | undefined) => formatBytes(n, '-');

/** "3m ago" / "in 2h" relative to now; "-" when absent. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '-';
  const d = (now - Date.parse(iso)) / 1000;
  const a = Math.abs(d);
  const s = a < 60 ? `${Math.round(a)}s` : a < 3600 ? `${Math.round(a / 60)}m` : a < 86400 ? `${Math.round(a / 3600)}h` : `${Math.round(a / 86400)}d`;
  return d >= 0 ? `${s} ago` : `in ${s}`;
}

/** A `[####....] 42%` bar. */
export function bar(percent: number, width = 30): string {
  const p = Math.max(0, Math.min(100, percent));
  const full = Math.round((p / 100) * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${String(Math.round(p)).padStart(3)}%`;
}

/**
 * Progress on stderr: redraws one line on a terminal; elsewhere prints a line at most
 * every `everyMs` so logs stay short.
 */
export function progressLine(everyMs = 1000) {
  const tty = process.stderr.isTTY;
  let last = 0;
  let shown = false;
  return {
    update(text: string, force = false) {
      const now = Date.now();
      if (!force && now - last < (tty ? 100 : everyMs)) return;
      last = now;
      shown = true;
      process.stderr.write(tty ? `\r\x1b[K${text}` : `${text}\n`);
    },
    done(text?: string) {
      if (text !== undefined) this.update(text, true);
      if (tty && shown) process.stderr.write('\n');
    },
  };
}
