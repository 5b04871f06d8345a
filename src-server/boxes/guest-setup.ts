import type { BoxRecord } from './boxes-repo.js';

/**
 * What other areas put into every box without owning the box domain: environment for every
 * process started in the box (merged under each exec's own `env`, which wins), and files
 * written through the guest agent after every start, restore or clone, before the box is
 * reported running. Examples: the egress CA bundle and its variables, inference SDK
 * variables. Providers must be fast (called on every exec) and never return secrets of the
 * organization: whatever they return enters the box.
 */
interface GuestSetup {
  env?: Record<string, string>;
  files?: { path: string; content: string | Buffer; mode: number }[];
}

type GuestSetupProvider = (box: BoxRecord) => GuestSetup;

export class GuestSetupRegistry {
  private providers: GuestSetupProvider[] = [];

  add(p: GuestSetupProvider): void {
    this.providers.push(p);
  }

  /** The merged environment for the box; later providers win on a clash. */
  env(box: BoxRecord): Record<string, string> {
    return Object.assign({}, ...this.providers.map((p) => p(box).env ?? {}));
  }

  files(box: BoxRecord): NonNullable<GuestSetup['files']> {
    return this.providers.flatMap((p) => p(box).files ?? []);
  }
}
