import type { PreparationStage as Stage } from '@box/contract/preparation';
import type { BoxClient } from './client.js';

/** One line for a preparation stage: what, how far, how long. */
export function stageLine(s: Stage): string {
  if (s.state === 'ready') return `${s.label}: ready`;
  if (s.state === 'failed') return `${s.label}: failed: ${s.error ?? s.message}`;
  if (s.state === 'pending') return `${s.label}: waiting (usually about ${Math.round(s.typical_seconds / 60)} min the first time)`;
  const eta =
    s.eta_seconds === null
      ? `usually about ${Math.round(s.typical_seconds / 60)} min`
      : `about ${s.eta_seconds < 60 ? `${s.eta_seconds}s` : `${Math.round(s.eta_seconds / 60)} min`} left`;
  return `${s.label}: ${s.percent}% ${s.message} (${eta})`;
}

/**
 * While `work` runs, prints the service's preparation stages (GET /v1/status) to stderr
 * whenever they change: the first box waits minutes for the guest image.
 */
export async function withPreparationProgress<T>(client: BoxClient, work: Promise<T>, quiet: boolean, everyMs = 1000): Promise<T> {
  if (quiet) return work;
  let last = '';
  let done = false;
  const poll = async () => {
    while (!done) {
      try {
        const st = await client.call('GET /v1/status');
        const busy = st.preparation && !st.preparation.ready ? st.preparation.stages.filter((s) => s.state !== 'ready') : [];
        const text = busy.map(stageLine).join('\n');
        if (text && text !== last) process.stderr.write(`${text}\n`);
        last = text || last;
      } catch {
        // progress is a courtesy: the create call reports real failures
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
  void poll();
  try {
    return await work;
  } finally {
    done = true;
  }
}
