import { Readable } from 'node:stream';
import type { BoxRecord } from './boxes-repo.js';
import type { GuestAgent } from './runtime-port.js';

/**
 * What other areas put into every box without owning the box domain: environment for every
 * process started in the box (merged under each exec's own `env`, which wins), and files
 * written through the guest agent after every start, restore or clone, before the box is
 * reported running. Examples: the egress CA bundle and its variables, inference SDK
 * variables. Providers must be fast (called on every exec) and never return secrets of the
 * organization: whatever they return enters the box.
 */
export interface GuestSetup {
  env?: Record<string, string>;
  files?: { path: string; content: string | Buffer; mode: number }[];
  /** Default working directory and user of execs that name none (an image's WORKDIR and USER). */
  cwd?: string;
  user?: string;
}

type GuestSetupProvider = (box: BoxRecord) => GuestSetup;

/** Runs after the files are written on every start, restore or clone (e.g. an image's CMD); must be idempotent. */
type GuestStartHook = (box: BoxRecord, agent: GuestAgent) => Promise<void>;

export class GuestSetupRegistry {
  private providers: GuestSetupProvider[] = [];
  readonly startHooks: GuestStartHook[] = [];

  onStarted(hook: GuestStartHook): void {
    this.startHooks.push(hook);
  }

  add(p: GuestSetupProvider): void {
    this.providers.push(p);
  }

  /** The merged environment for the box; later providers win on a clash. */
  env(box: BoxRecord): Record<string, string> {
    return Object.assign({}, ...this.providers.map((p) => p(box).env ?? {}));
  }

  /** Default cwd and user for execs; later providers win. */
  defaults(box: BoxRecord): { cwd?: string; user?: string } {
    const out: { cwd?: string; user?: string } = {};
    for (const p of this.providers) {
      const s = p(box);
      if (s.cwd) out.cwd = s.cwd;
      if (s.user) out.user = s.user;
    }
    return out;
  }

  files(box: BoxRecord): NonNullable<GuestSetup['files']> {
    return this.providers.flatMap((p) => p(box).files ?? []);
  }
}

/**
 * Writes guest setup files through the agent (parents created; same content each time, so
 * idempotent). No syncs: they are written again on every start (a sync costs 15-80 ms a
 * file under TCG).
 */
export async function writeGuestFiles(agent: GuestAgent, files: NonNullable<GuestSetup['files']>): Promise<void> {
  for (const f of files) await agent.writeFile(f.path, { mode: f.mode, createParents: true, durable: false }, Readable.from([Buffer.from(f.content)]));
}
