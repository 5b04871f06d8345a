/**
 * How long a box's start takes, learned in this browser per shape (image and size): the
 * service's own measure of the last start (`last_start.ms`). The first box of a shape builds
 * that shape's template (a cold boot, then a snapshot), so with nothing learned yet the
 * estimate is the cold boot of the machine's accelerator.
 */
const storeKey = (shape: string) => `box-start-seconds:${shape}`;

export const shapeKey = (image: string | undefined, size: string | undefined) => `${image || 'default'}:${size ?? 's'}`;

export function learnStart(shape: string, ms: number) {
  if (Number.isFinite(ms) && ms > 0) localStorage.setItem(storeKey(shape), String(Math.round(ms / 1000)));
}

/** Seconds a start of this shape is expected to take, and whether that is learned (else the first of its shape). */
export function expectedStart(shape: string, accelerator: unknown): { seconds: number; learned: boolean } {
  const learned = Number(localStorage.getItem(storeKey(shape)));
  if (learned > 0) return { seconds: Math.max(2, Math.ceil(learned * 1.25)), learned: true };
  return { seconds: accelerator === 'kvm' ? 20 : 90, learned: false };
}

/**
 * Time left that never goes up: the smaller of the estimate's countdown and the last value
 * shown. Past the estimate it stays at 0 ("any moment now"), it never jumps back up.
 */
export function countdown(expectedSeconds: number, elapsedSeconds: number, lastShown: number | null): number {
  const left = Math.max(0, Math.round(expectedSeconds - elapsedSeconds));
  return lastShown === null ? left : Math.min(lastShown, left);
}
