import { randomUUID } from 'node:crypto';
import type { BoxClient } from './client.js';
import { seg } from './client.js';
import { ApiFailure, CliError } from './errors.js';
import type { ExecEvent } from '@box/contract/exec';
import { ndjsonLines } from '@box/contract/ndjson';

export interface ExecRequest {
  command: string | string[];
  cwd?: string;
  env?: Record<string, string>;
  user?: string;
  timeout?: number;
  open_stdin?: boolean;
  tty?: { cols: number; rows: number };
}

interface ExecHandlers {
  onStarted?(execId: string): void;
  onOutput(stream: 'stdout' | 'stderr', data: Buffer): void;
}

interface ExecOutcome {
  execId: string;
  status: string;
  returnCode: number | null;
  errors: { code: string; message: string }[];
}

const REATTACH_TRIES = 3;

/**
 * Runs one command and streams its NDJSON events. Every call carries an idempotency_key, so
 * a dropped stream re-attaches to the same exec (the service replays from the start; the
 * output already delivered is skipped by its seq) instead of running the command twice.
 */
export async function runExec(client: BoxClient, boxId: string, req: ExecRequest, h: ExecHandlers): Promise<ExecOutcome> {
  const body = { ...req, idempotency_key: `cli-${randomUUID()}` };
  let lastSeq = 0;
  let execId = '';
  const errors: ExecOutcome['errors'] = [];
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await client.raw('POST', `/v1/boxes/${seg(boxId)}/exec`, { json: body });
    } catch (e) {
      if (attempt < REATTACH_TRIES && execId && !(e instanceof ApiFailure)) {
        await sleep(500 * (attempt + 1));
        continue;
      }
      throw e;
    }
    try {
      for await (const ev of ndjson(res)) {
        if (ev.type === 'started') {
          if (!execId) h.onStarted?.(ev.exec_id);
          execId = ev.exec_id;
        } else if (ev.type === 'stdout' || ev.type === 'stderr') {
          if (ev.seq <= lastSeq) continue;
          lastSeq = ev.seq;
          h.onOutput(ev.type, Buffer.from(ev.data, 'base64'));
        } else if (ev.type === 'error') {
          errors.push({ code: ev.code, message: ev.message });
        } else if (ev.type === 'exit') {
          return { execId, status: ev.status, returnCode: ev.return_code, errors };
        }
      }
    } catch (e) {
      if (attempt >= REATTACH_TRIES || !execId) throw new CliError(`exec stream broke: ${(e as Error).message}`);
      await sleep(500 * (attempt + 1));
      continue;
    }
    if (attempt >= REATTACH_TRIES || !execId) throw new CliError('the exec stream ended without an exit event');
  }
}

/** Parses an `application/x-ndjson` body into events, line by line as they arrive. */
async function* ndjson(res: Response): AsyncGenerator<ExecEvent> {
  for await (const line of ndjsonLines(res)) yield JSON.parse(line) as ExecEvent;
}

/** The process exit code mirroring a finished exec (timeout 124 like coreutils timeout). */
export function exitCodeOf(o: ExecOutcome): number {
  if (o.returnCode !== null && o.returnCode !== undefined) return o.returnCode & 0xff;
  if (o.status === 'timed_out') return 124;
  if (o.status === 'cancelled') return 130;
  return o.status === 'succeeded' ? 0 : 1;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
