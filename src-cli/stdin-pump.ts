import type { Answer } from '@box/contract/call';
import type { BoxClient } from './client.js';
import { seg } from './client.js';
import { ApiFailure } from './errors.js';
import { sleep } from './exec-stream.js';

const MAX_CHUNK = 1024 * 1024;

/**
 * Sends local input to an exec's stdin endpoint in order, one request at a time, each at its
 * byte offset: a retry after a lost answer resends the same offset and the service skips
 * what it already has. Bytes that arrive while a request is out are sent together next.
 */
export class StdinPump {
  private offset = 0;
  private pending: Buffer[] = [];
  private eof = false;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private client: BoxClient,
    private boxId: string,
    private execId: string,
    private onError: (e: Error) => void,
  ) {}

  write(data: Buffer) {
    if (this.stopped || this.eof) return;
    this.pending.push(data);
    this.kick();
  }

  end() {
    if (this.eof) return;
    this.eof = true;
    this.kick();
  }

  /** Stops sending (the command ended). */
  stop() {
    this.stopped = true;
  }

  /** Resolves once everything written so far (and the eof, if ended) is accepted. */
  async flushed() {
    while (this.running) await this.running;
  }

  private kick() {
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  private async loop() {
    while (!this.stopped) {
      const all = Buffer.concat(this.pending);
      const chunk = all.subarray(0, MAX_CHUNK);
      const sendEof = this.eof && chunk.length === all.length;
      if (chunk.length === 0 && !sendEof) return;
      this.pending = chunk.length < all.length ? [all.subarray(chunk.length)] : [];
      await this.send(chunk, sendEof);
      if (sendEof) {
        this.stopped = true;
        return;
      }
    }
  }

  private async send(chunk: Buffer, eof: boolean) {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.client.request<Answer<'PUT /v1/boxes/:box_id/exec/:exec_id/stdin'>>(
          'PUT',
          `/v1/boxes/${seg(this.boxId)}/exec/${seg(this.execId)}/stdin`,
          {
            query: { offset: this.offset, eof: eof ? 'true' : undefined },
            body: new Uint8Array(chunk),
            headers: { 'content-type': 'application/octet-stream' },
          },
        );
        this.offset = res.accepted_through;
        return;
      } catch (e) {
        const retryable = !(e instanceof ApiFailure) || e.status === 429 || e.status === 503;
        if (!retryable || attempt >= 5) {
          this.stopped = true;
          this.onError(e as Error);
          return;
        }
        await sleep(200 * 2 ** attempt);
      }
    }
  }
}
