import type { Readable } from 'node:stream';
import { conflict, Forbidden, invalid, notFound, Unavailable } from '../core/errors.js';
import type { BoxService } from './lifecycle/box-service.js';
import type { BoxRecord } from './boxes-repo.js';
import type { EntryInfo } from './runtime-port.js';

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
 * (`ensureRunning`), and the agent's errors become domain errors. The caller has already
 * authorized the box (`boxFor(..., 'files')`).
 */
export class FilesService {
  constructor(private boxes: Pick<BoxService, 'ensureRunning' | 'agent'>) {}

  private async agent(box: BoxRecord) {
    const running = await this.boxes.ensureRunning(box, 'files');
    return this.boxes.agent(running.box_id);
  }

  /** Streams `source` into one regular file (a complete retry replaces it). */
  async write(box: BoxRecord, path: string, opts: { mode: number; createParents: boolean }, source: Readable): Promise<{ sizeBytes: number }> {
    const agent = await this.agent(box);
    return agent.writeFile(path, opts, source).catch((e) => guestError(e, path));
  }

  async read(box: BoxRecord, path: string): Promise<{ mode: number; size: number | null; stream: Readable }> {
    const agent = await this.agent(box);
    return agent.readFile(path).catch((e) => guestError(e, path));
  }

  /** A directory's entries, sorted by name (byte order). */
  async list(box: BoxRecord, path: string): Promise<EntryInfo[]> {
    const agent = await this.agent(box);
    const entries = await agent.listDir(path).catch((e) => guestError(e, path));
    return [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
