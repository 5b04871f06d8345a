/** Display helpers: sizes, modes, times. */
export { formatBytes } from '@box/contract/format';

/** POSIX permission bits (decimal on the wire) as octal, e.g. 420 → "0644". */
export const formatMode = (mode: number) => `0${(mode & 0o7777).toString(8).padStart(3, '0')}`;

export function formatTime(t: string | number | null | undefined): string {
  if (t === null || t === undefined || t === '') return '—';
  const d = typeof t === 'number' ? new Date(t * 1000) : new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function formatAgo(iso: string | null | undefined): string {
  if (!iso) return '—';
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 0) return `in ${formatDuration(-s)}`;
  return `${formatDuration(s)} ago`;
}

export function formatDuration(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d`;
}

export const formatUsd = (nanos: number) => `$${(nanos / 1e9).toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 4 })}`;

export const shortId = (id: string) => (id.length > 14 ? `${id.slice(0, id.indexOf('_') + 9)}…` : id);

/** Memory in MiB as people read it: "512 MiB", "2 GiB". */
const formatMib = (mib: number) => (mib >= 1024 && mib % 1024 === 0 ? `${mib / 1024} GiB` : mib >= 1024 ? `${(mib / 1024).toFixed(1)} GiB` : `${mib} MiB`);

/** A box's size, each number labelled: "1 vCPU · 512 MiB RAM · 4 GiB disk". */
export const formatResources = (r: { vcpu_count: number; memory_mib: number; disk_gib: number }) =>
  `${r.vcpu_count} vCPU · ${formatMib(r.memory_mib)} RAM · ${r.disk_gib} GiB disk`;
