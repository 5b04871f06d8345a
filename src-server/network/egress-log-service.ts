import type { Response } from 'express';
import type { EgressRepo } from './egress/egress-log-repo.js';
import { streamEgressLog } from './egress/egress-log-stream.js';

type Filter = { verdict?: string; host?: string };

/**
 * The egress log as the API reads it (`GET /v1/boxes/{id}/egress-log`): one filtered page,
 * newest first, or a live server-sent-event stream (egress/egress-log-stream.ts). The proxy
 * writes the log through the same repository; nothing here writes.
 */
export class EgressLogService {
  constructor(private repo: EgressRepo) {}

  async page(boxId: string, limit: number, offset: number, filter: Filter) {
    return await this.repo.page(boxId, limit, offset, filter);
  }

  /** Backlog of `limit` entries, then each new one, until the client goes. */
  async stream(res: Response, boxId: string, limit: number, filter: Filter): Promise<void> {
    await streamEgressLog(res, this.repo, boxId, limit, filter);
  }
}
