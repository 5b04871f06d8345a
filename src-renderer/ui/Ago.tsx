import { useEffect, useState } from 'react';
import { formatAgo, formatTime } from './format.js';

/** Re-renders every `ms` (relative times would otherwise freeze between data refreshes). */
function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/** "12s ago", kept current; the exact time as a tooltip and `data-at` (tests compare it with the API). */
export function Ago({ iso, testId }: { iso: string | null | undefined; testId?: string }) {
  useNow(iso && Date.now() - Date.parse(iso) < 3600_000 ? 1000 : 30_000);
  return (
    <time dateTime={iso ?? undefined} title={formatTime(iso)} data-testid={testId} data-at={iso ?? ''}>
      {formatAgo(iso)}
    </time>
  );
}
