import type { ExecBody, ExecEvent } from '@box/contract/exec';
import { ndjsonLines } from '@box/contract/ndjson';
import { api, apiFetch, call, type Answer } from './client.js';

/**
 * Runs a command in a box and reads its NDJSON event stream with fetch streaming.
 * Resolves when the stream ends (after `exit`, or when aborted).
 */
export async function runExec(boxId: string, body: ExecBody, onEvent: (e: ExecEvent) => void, signal?: AbortSignal): Promise<void> {
  const res = await apiFetch(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: body, signal });
  await readNdjson(res, onEvent);
}

/** Reads an NDJSON answer line by line (a last line without its newline too) until it ends. */
export async function readNdjson<T>(res: Response, on: (e: T) => void): Promise<void> {
  for await (const line of ndjsonLines(res)) on(JSON.parse(line) as T);
}

export const decodeBase64 = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

/**
 * Ordered stdin for one exec: keystrokes queue up while a PUT is in flight and go out
 * as one chunk at the next offset; the service's `accepted_through` moves the offset.
 */
export class StdinWriter {
  /** null: not known yet (a re-attached exec): the first chunk goes at whatever the service accepted so far. */
  private offset: number | null = 0;
  private pending: Uint8Array[] = [];
  private sending = false;
  private readonly enc = new TextEncoder();

  constructor(
    private readonly boxId: string,
    private readonly execId: string,
    private readonly onError: (e: unknown) => void,
    reattached = false,
  ) {
    if (reattached) this.offset = null;
  }

  write(data: string) {
    this.pending.push(this.enc.encode(data));
    void this.flush();
  }

  private async flush() {
    if (this.sending || this.pending.length === 0) return;
    this.sending = true;
    const size = this.pending.reduce((n, c) => n + c.length, 0);
    const chunk = new Uint8Array(size);
    let at = 0;
    for (const c of this.pending.splice(0)) {
      chunk.set(c, at);
      at += c.length;
    }
    try {
      const r = await api<Answer<'PUT /v1/boxes/:box_id/exec/:exec_id/stdin'>>(`/v1/boxes/${this.boxId}/exec/${this.execId}/stdin`, {
        method: 'PUT',
        query: this.offset === null ? {} : { offset: this.offset },
        body: chunk,
        headers: { 'content-type': 'application/octet-stream' },
      });
      this.offset = r.accepted_through;
    } catch (e) {
      this.onError(e);
    } finally {
      this.sending = false;
      void this.flush();
    }
  }
}

export const resizeExec = (boxId: string, execId: string, cols: number, rows: number) =>
  call('POST /v1/boxes/:box_id/exec/:exec_id/resize', { params: { box_id: boxId, exec_id: execId }, body: { cols, rows } });
