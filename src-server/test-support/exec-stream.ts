import type { ExecEvent } from '@box/contract/exec';

/**
 * An exec's NDJSON answer (`POST /v1/boxes/{id}/exec`) read back by tests, benches and e2e:
 * its events, stdout decoded, and the exit event.
 */
export function readExecStream(text: string) {
  const events = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ExecEvent);
  const stdout = events
    .filter((e): e is Extract<ExecEvent, { data: string }> => e.type === 'stdout')
    .map((e) => Buffer.from(e.data, 'base64').toString())
    .join('');
  const exit = events.find((e): e is Extract<ExecEvent, { type: 'exit' }> => e.type === 'exit');
  return { events, stdout, exit };
}
