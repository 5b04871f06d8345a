import type { Readable } from 'node:stream';
import type { VolumeEntry } from '@box/contract/volumes';
import { conflict, notFound, Unavailable } from '../../kernel/domain-errors.js';
import type { BoxService } from './lifecycle/box-service.js';
import type { BoxRecord } from './boxes-repo.js';
import type { GuestAgent } from './runtime-port.js';

/** Exit codes of the scripts below (their other failures are the command's own). */
const EXISTS = 17;
const MISSING = 44;
const NOT_EMPTY = 39;

/**
 * Each operation is one `sh -c` script with the paths as positional arguments (never
 * spliced into the script: no quoting can go wrong), run from "/" on paths made relative
 * ("./home/x"), so a runtime whose exec maps the working directory (the fake one) stays
 * inside the box too. The schemas (contract/box-ops.ts) refused "..", NUL and "/" itself.
 */
const SCRIPTS = {
  mkdir: `if [ -e "$1" ] || [ -L "$1" ]; then exit ${EXISTS}; fi; mkdir -p -- "$1"`,
  rm: `[ -e "$1" ] || [ -L "$1" ] || exit ${MISSING}
if [ -d "$1" ] && [ ! -L "$1" ]; then
  if [ "$2" = 1 ]; then rm -rf -- "$1"; else rmdir -- "$1" 2>/dev/null || exit ${NOT_EMPTY}; fi
else rm -f -- "$1"; fi`,
  mv: `[ -e "$1" ] || [ -L "$1" ] || exit ${MISSING}; if [ -e "$2" ] || [ -L "$2" ]; then exit ${EXISTS}; fi; mv -- "$1" "$2"`,
};

const rel = (p: string) => `.${p.replace(/\/+$/, '')}`;

async function text(s: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * New folder, delete and rename inside a box (the box file browser; `box files mkdir|rm|mv`),
 * through its guest agent like the files API: a sleeping box is woken first. Errors name the
 * field: 404 when `path`/`from` is missing, 409 when `path`/`to` exists or a folder is not
 * empty without recursive=true.
 */
export class BoxFileOps {
  constructor(private boxes: Pick<BoxService, 'ensureRunning' | 'agent'>) {}

  private async run(box: BoxRecord, script: string, args: string[]): Promise<{ code: number | null; stderr: string; agent: GuestAgent }> {
    const running = await this.boxes.ensureRunning(box, 'files');
    const agent = await this.boxes.agent(running.box_id);
    try {
      const ex = agent.exec({ argv: ['sh', '-c', script, 'sh', ...args], cwd: '/', timeoutMs: 120_000 });
      const [, stderr, exit] = await Promise.all([text(ex.stdout), text(ex.stderr), ex.exit]);
      if (exit.timedOut) throw new Unavailable('The file operation did not finish within 120 s.', { retryAfterSeconds: 1 });
      return { code: exit.exitCode, stderr: stderr.trim(), agent };
    } catch (e) {
      if (e instanceof Unavailable) throw e;
      throw new Unavailable(`The box's agent did not answer: ${(e as Error).message}`, { retryAfterSeconds: 1 });
    }
  }

  /** The entry as the directory listing shows it (named by its last segment). */
  private async entry(agent: GuestAgent, path: string): Promise<VolumeEntry> {
    const e = await agent.stat(path, { follow: false });
    return { name: path.split('/').filter(Boolean).pop()!, type: e.type, size: e.size, modified_time: e.modified_time, mode: e.mode };
  }

  async mkdir(box: BoxRecord, path: string): Promise<VolumeEntry> {
    const { code, stderr, agent } = await this.run(box, SCRIPTS.mkdir, [rel(path)]);
    if (code === EXISTS) throw conflict(`${path} already exists in the box.`, 'already_exists', 'path');
    if (code !== 0) throw conflict(`Cannot create ${path}: ${stderr || `mkdir exited with ${code}`}`, 'failed_precondition', 'path');
    return this.entry(agent, path);
  }

  async remove(box: BoxRecord, path: string, recursive: boolean): Promise<void> {
    const { code, stderr } = await this.run(box, SCRIPTS.rm, [rel(path), recursive ? '1' : '0']);
    if (code === MISSING) throw notFound(`No such file or directory in the box: ${path}`, 'not_found', 'path');
    if (code === NOT_EMPTY)
      throw conflict(`${path} is a folder that is not empty; send recursive=true to delete it with its contents.`, 'failed_precondition', 'recursive');
    if (code !== 0) throw conflict(`Cannot delete ${path}: ${stderr || `rm exited with ${code}`}`, 'failed_precondition', 'path');
  }

  async move(box: BoxRecord, from: string, to: string): Promise<VolumeEntry> {
    const { code, stderr, agent } = await this.run(box, SCRIPTS.mv, [rel(from), rel(to)]);
    if (code === MISSING) throw notFound(`No such file or directory in the box: ${from}`, 'not_found', 'from');
    if (code === EXISTS) throw conflict(`${to} already exists in the box; choose another name.`, 'already_exists', 'to');
    if (code !== 0) throw conflict(`Cannot move ${from} to ${to}: ${stderr || `mv exited with ${code}`}`, 'failed_precondition', 'to');
    return this.entry(agent, to);
  }
}
