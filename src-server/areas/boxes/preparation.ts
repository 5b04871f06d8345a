import type { AppBase } from '../../platform/app-context.js';
import type { Preparation, PreparationStage } from '@box/contract/preparation';
import type { BoxRuntime } from './runtime-port.js';

/** The runtime's image progress, as the runtime reports it (runtime/guest-image/guest-image.ts). */
interface ImageProgressEvent {
  phase: string;
  percent: number;
  message: string;
}

const PHASE_WORDS: Record<string, string> = {
  check: 'checking the cached image',
  kernel: 'preparing the kernel',
  base: 'installing the Debian packages (the long part)',
  layer: "installing the code interpreter's packages over the base",
  rootfs: 'building the Debian root filesystem (its configuration, ext4)',
  initrd: 'packing the guest agent into the initrd',
  done: 'ready',
};

/** A warm template's build as the runtime reports it (runtime/templates/templates.ts TemplateBuildEvent). */
interface TemplateBuildEvent {
  shape: { vcpus: number; memoryMib: number };
  state: 'running' | 'ready' | 'failed';
  phase: string;
  percent: number;
  error?: string;
}

const TEMPLATE_LABEL = 'Warm template (boxes start from it in milliseconds; the code interpreter warmed up in it)';
const CODE_LABEL =
  "Code interpreter (Python's Jupyter kernel with numpy, pandas, matplotlib; Node for JavaScript): a layer over the guest image, built after it; boxes created once it is ready have it";

/**
 * Tracks the one-time preparation stages for `GET /v1/status` (`preparation`). The runtime
 * reports progress; this keeps the latest per stage, with an ETA from the pace so far.
 * The `template` stage appears with the first template build (the first box does not wait
 * for it: it cold-boots meanwhile) and shows the latest build.
 */
export class PreparationTracker {
  private stages = new Map<PreparationStage['name'], PreparationStage>();

  constructor(private now: () => number = Date.now) {
    this.stages.set('image', blank('image', 'Guest image (Debian, built once on this machine, then cached)', 150));
  }

  onImage(p: ImageProgressEvent): void {
    const done = p.phase === 'done';
    this.progress('image', done, p.percent, done ? p.message : `${PHASE_WORDS[p.phase] ?? p.phase}: ${p.message}`);
  }

  /** The code interpreter's layer over the image (runtime/templates/machine-source.ts), built after the base. */
  onCodeLayer(p: ImageProgressEvent | { phase: 'failed'; error: Error }): void {
    if (!this.stages.has('code')) this.stages.set('code', blank('code', CODE_LABEL, 120));
    if ('error' in p) return this.failed('code', p.error);
    const done = p.phase === 'done';
    this.progress('code', done, p.percent, done ? 'ready' : `${PHASE_WORDS[p.phase] ?? p.phase}: ${p.message}`);
  }

  onTemplate(e: TemplateBuildEvent): void {
    if (!this.stages.has('template')) this.stages.set('template', blank('template', TEMPLATE_LABEL, 90));
    if (e.state === 'failed') return this.failed('template', new Error(e.error ?? 'the template build failed'));
    const what = `${e.shape.vcpus} vCPU, ${e.shape.memoryMib} MiB`;
    this.progress('template', e.state === 'ready', e.percent, e.state === 'ready' ? `ready (${what})` : `${e.phase} (${what})`);
  }

  private progress(name: PreparationStage['name'], done: boolean, rawPercent: number, message: string): void {
    const s = this.stages.get(name)!;
    const at = new Date(this.now()).toISOString();
    // a stage that ended (ready or failed) starts over with a new build
    const startedAt = s.state === 'running' && s.started_at ? s.started_at : at;
    const elapsed = (this.now() - Date.parse(startedAt)) / 1000;
    const percent = Math.max(0, Math.min(100, Math.round(rawPercent)));
    this.stages.set(name, {
      ...s,
      state: done ? 'ready' : 'running',
      percent: done ? 100 : percent,
      message,
      started_at: startedAt,
      updated_at: at,
      eta_seconds: done ? null : this.timeLeft(s, percent >= 5 && elapsed > 2 ? (elapsed * (100 - percent)) / percent : null),
      error: null,
    });
  }

  /**
   * The new estimate from the pace so far, but never more than what was shown a moment ago
   * (the last estimate counted down with the clock): the time left never goes up (issue 35).
   * Past an estimate that ran out it stays 0, which the UI and the CLI show as "taking longer".
   */
  private timeLeft(prev: PreparationStage, pace: number | null): number | null {
    const shown = prev.state === 'running' ? countedDown(prev, this.now()) : null;
    if (pace === null) return shown;
    return Math.round(shown === null ? pace : Math.min(pace, shown));
  }

  failed(name: PreparationStage['name'], e: unknown): void {
    const s = this.stages.get(name);
    if (!s) return;
    const message = e instanceof Error ? e.message : String(e);
    this.stages.set(name, {
      ...s,
      state: 'failed',
      message: 'failed',
      error: message.split('\n')[0]!.slice(0, 500),
      eta_seconds: null,
      updated_at: new Date(this.now()).toISOString(),
    });
  }

  snapshot(): Preparation {
    // The estimate counts down from the moment it was made: between progress events the
    // time left shrinks with the clock (it never grows while nothing new is known).
    const now = this.now();
    const stages = [...this.stages.values()].map((s) => (s.state === 'running' ? { ...s, eta_seconds: countedDown(s, now) } : s));
    return { ready: stages.every((s) => s.state === 'ready'), stages };
  }
}

/** A running stage's estimate counted down from when it was made, at `now` (0 at worst). */
function countedDown(s: PreparationStage, now: number): number | null {
  if (s.eta_seconds === null || !s.updated_at) return s.eta_seconds;
  return Math.max(0, Math.round(s.eta_seconds - (now - Date.parse(s.updated_at)) / 1000));
}

function blank(name: PreparationStage['name'], label: string, typical: number): PreparationStage {
  return {
    name,
    label,
    state: 'pending',
    percent: 0,
    message: 'not started',
    started_at: null,
    updated_at: null,
    eta_seconds: null,
    typical_seconds: typical,
    error: null,
  };
}

/** Adds `preparation` to GET /v1/status; a failed image build (the runtime's image promise) marks the stage failed. */
export function showPreparation(app: AppBase, runtime: BoxRuntime, tracker: PreparationTracker) {
  void runtime.accelerator().catch((e: unknown) => tracker.failed('image', e));
  app.statusProviders.push(() => ({ preparation: tracker.snapshot() }));
}
