import type { PreparationTracker } from '../areas/boxes/preparation.js';
import { FakeRuntime } from './fake-runtime.js';

/**
 * A fake runtime whose first create waits for a "guest image build", reporting progress
 * to the tracker the way the QEMU runtime's onImageProgress does (tests of the first-box
 * experience without a multi-minute real build). `stepMs` per phase.
 */
export function slowImageRuntime(tracker: PreparationTracker, stepMs = 1200) {
  let built: Promise<void> | undefined;
  const build = async () => {
    for (const [phase, percent] of [
      ['kernel', 5],
      ['rootfs', 40],
      ['rootfs', 70],
      ['initrd', 90],
    ] as const) {
      tracker.onImage({ phase, percent, message: `building ${phase}` });
      await new Promise((r) => setTimeout(r, stepMs));
    }
    tracker.onImage({ phase: 'done', percent: 100, message: 'guest image ready' });
  };
  return class SlowImageRuntime extends FakeRuntime {
    override async create(cfg: Parameters<FakeRuntime['create']>[0]) {
      await (built ??= build());
      return super.create(cfg);
    }
  };
}
