/** Display helpers shared by the renderer and the CLI (no node imports). */

/** 1536 → "1.5 KiB"; `missing` stands in for an unknown size. */
export function formatBytes(n: number | null | undefined, missing = '—'): string {
  if (n === null || n === undefined || Number.isNaN(n)) return missing;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}
