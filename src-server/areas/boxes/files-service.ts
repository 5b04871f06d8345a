import type { Readable } from 'node:stream';
import { conflict, Forbidden, invalid, notFound, Unavailable } from '../../kernel/domain-errors.js';
import type { BoxService } from './lifecycle/box-service.js';
import type { BoxRecord } from './boxes-repo.js';
import type { MaintenanceVms } from './lifecycle/maintenance.js';
import type { EntryInfo, GuestAgent } from './runtime-port.js';

/** Maps a guest agent error code (resources/guest/PROTOCOL.md) onto domain errors naming `path`. */
function guestError(e: unknown, path: string): never {
  const code = (e as { code?: string }).code;
  const msg = (e as Error).message;
  switch (code) {
    case 'not_found':
      throw notFound(`No such file or directory in the box: ${path}`, 'not_found', 'path');
    case 'is_directory':
      throw conflict(`${path} is a directory.`, 'failed_precondition', 'path');
    case 'not_directory':
      throw conflict(`A component of ${path} is not a directory.`, 'failed_precondition', 'path');
    case 'exists':
      throw conflict(`${path} already exists.`, 'already_exists', 'path');
    case 'permission_denied':
      throw new Forbidden(`The box refused access to ${path}.`, { param: 'path' });
    case 'invalid':
      throw invalid(`Invalid path ${path}: ${msg}`, 'path');
    case 'disconnected':
    case 'timeout':
      throw new Unavailable(`The box's agent did not answer: ${msg}`, { retryAfterSeconds: 1 });
    default:
      throw e;
  }
}

/**
 * Files inside a box, through its guest agent: the box is woken first if it sleeps
 * (`ensureRunning`), a failed one is served from its stopped disk (maintenance.ts), and the
 * agent's errors become domain errors. The caller has already
 * authorized the box (`boxFor(..., 'files')`).
 */
export class FilesService {
  constructor(
    private boxes: Pick<BoxService, 'ensureRunning' | 'agent'>,
    /** Serves the calls on a `failed` box from its stopped disk (maintenance.ts). */
    private maintenance?: Pick<MaintenanceVms, 'with'>,
  ) {}

  /** Runs `call` with the agent that serves the box's files; `done` ends the call (a read: when its stream closes). */
  private async withAgent<T>(box: BoxRecord, call: (agent: GuestAgent, done: () => void) => Promise<T>): Promise<T> {
    if (box.status === 'failed' && this.maintenance) return this.maintenance.with(box, call);
    const running = await this.boxes.ensureRunning(box, 'files');
    return call(await this.boxes.agent(running.box_id), () => {});
  }

  /** Streams `source` into one regular file (a complete retry replaces it). */
  async write(
    box: BoxRecord,
    path: string,
    opts: { mode: number; createParents: boolean; user?: string; chownToUser?: boolean; keepMode?: boolean; xattrs?: Record<string, string> },
    source: Readable,
  ): Promise<{ sizeBytes: number; xattrsSet?: number }> {
    return this.withAgent(box, async (agent, done) => {
      try {
        return await agent.writeFile(path, opts, source).catch((e) => guestError(e, path));
      } finally {
        done();
      }
    });
  }

  async read(box: BoxRecord, path: string, opts: { user?: string } = {}): Promise<{ mode: number; size: number | null; stream: Readable }> {
    return this.withAgent(box, async (agent, done) => {
      const file = await agent.readFile(path, opts).catch((e) => guestError(e, path));
      file.stream.once('close', done);
      return file;
    });
  }

  /**
   * A directory's entries, sorted by name (byte order), in batches as the agent sends them
   * (a listing of any size is passed on, not held). Errors such as a missing directory are
   * thrown here, before the first batch; the call ends when the batches are read or dropped.
   */
  async list(box: BoxRecord, path: string): Promise<AsyncGenerator<EntryInfo[]>> {
    return this.withAgent(box, async (agent, done) => {
      const batches = agent.listDir(path);
      const first = await batches.next().catch((e) => {
        done();
        return guestError(e, path);
      });
      return (async function* () {
        try {
          if (first.done) return;
          yield first.value;
          for (;;) {
            const next = await batches.next().catch((e) => guestError(e, path));
            if (next.done) return;
            yield next.value;
          }
        } finally {
          done();
          await batches.return(undefined);
        }
      })();
    });
  }
}
