/**
 * One stop per signal burst. A stop signal often arrives more than once: a terminal's
 * Ctrl+C, systemd and `docker stop` signal the whole process group, so the service gets the
 * signal itself and again from each launcher that forwards it (`npm start`, scripts/start.mjs),
 * within milliseconds. Repeats within `graceMs` of the first are that same stop; a signal
 * later than that is a person pressing Ctrl+C again ("leave the boxes running, exit now").
 */
const DUPLICATE_SIGNAL_MS = 1000;

type StopSignal = 'SIGINT' | 'SIGTERM';

interface StopSignalHandlers {
  /** The first signal: the stop begins. */
  stop(signal: StopSignal): void;
  /** A signal more than `graceMs` after the first, while the stop is still under way. */
  again(signal: StopSignal): void;
  /** A repeat within the grace period (logged, otherwise ignored). */
  duplicate?(signal: StopSignal, afterMs: number): void;
}

/** The decision alone (tests drive it with their own clock). */
export function stopSignalGate(h: StopSignalHandlers, graceMs = DUPLICATE_SIGNAL_MS, now: () => number = Date.now) {
  let first: number | undefined;
  return (signal: StopSignal) => {
    const t = now();
    if (first === undefined) {
      first = t;
      h.stop(signal);
    } else if (t - first <= graceMs) h.duplicate?.(signal, t - first);
    else h.again(signal);
  };
}

/** Installs the gate on this process's SIGINT and SIGTERM. */
export function onStopSignals(h: StopSignalHandlers, graceMs = DUPLICATE_SIGNAL_MS): void {
  const gate = stopSignalGate(h, graceMs);
  process.on('SIGINT', () => gate('SIGINT'));
  process.on('SIGTERM', () => gate('SIGTERM'));
}
