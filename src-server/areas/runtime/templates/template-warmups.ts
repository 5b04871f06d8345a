/**
 * A template build's warm-ups (other areas' warm state run in the guest before the save, e.g.
 * the code interpreter's kernel) and the build's progress as the service's preparation
 * stages show it.
 */
import type { TemplateShape, TemplateWarmup } from '../../boxes/ports.js';
import { execText } from '../exec-text.js';

/** A template build's progress as it goes, for the service's preparation stages (GET /v1/status). */
export interface TemplateBuildEvent {
  templateId: string;
  shape: TemplateShape;
  state: 'running' | 'ready' | 'failed';
  phase: string;
  percent: number;
  error?: string;
}

/**
 * Runs the warm-ups in order, with the build's progress: they are most of a build (the code
 * interpreter's kernel: one to two minutes under TCG), so the percentages follow time
 * (25 to 80 across them) and the pace gives a fair time left.
 */
export async function runWarmups(
  warmups: TemplateWarmup[],
  agent: Parameters<typeof execText>[0],
  progress: (p: { phase: string; percent: number }) => void,
  failed: (w: TemplateWarmup, why: string) => void,
): Promise<void> {
  const n = warmups.length;
  const phase = (w: TemplateWarmup | undefined) => (w ? `warm-up: ${w.key.split(':')[0]}` : 'prepare');
  progress({ phase: phase(warmups[0]), percent: n ? 25 : 70 });
  for (const [i, w] of warmups.entries()) {
    await runWarmup(w, agent, (why) => failed(w, why));
    progress({ phase: phase(warmups[i + 1]), percent: Math.round(25 + (55 * (i + 1)) / n) });
  }
  progress({ phase: 'prepare', percent: 80 });
}

/** A warm-up step failing leaves the template as it would be without it (the area starts its work on demand). */
async function runWarmup(w: TemplateWarmup, agent: Parameters<typeof execText>[0], failed: (why: string) => void) {
  const guest = {
    sh: (script: string, timeoutMs: number) => execText(agent, ['/bin/sh', '-c', script], timeoutMs),
    writeFile: async (path: string, content: Buffer) => void (await agent.writeFile(path, { mode: 0o644, createParents: true }, content)),
  };
  await w.run(guest).catch((e: Error) => failed(e.message.slice(0, 500)));
}

/** The TCG translation cache (MiB) the warm-ups ask for VMs of an image with this lineage; 0: the default. */
export function tcgCacheFor(warmups: TemplateWarmup[], lineage: string[]): number {
  return Math.max(0, ...warmups.map((w) => (w.tcgCache && lineage.includes(w.tcgCache.image) ? w.tcgCache.mib : 0)));
}
