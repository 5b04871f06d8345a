import type { OnQuit } from '@box/contract/service-admin';

/** What quitting does with the running boxes, decided before the service closes. */
export interface QuitPlan {
  /** `ask`: only the desktop app (a dialog); `nothing`: no box is running. */
  action: 'ask' | 'stop_boxes' | 'leave_running' | 'nothing';
  running: number;
  /** One plain sentence for the banner, the tray tooltip or the dialog. */
  message: string;
}

const boxes = (n: number) => (n === 1 ? '1 running box' : `${n} running boxes`);

/**
 * The decision, as a pure function of the setting, the number of running boxes and where
 * the service runs. The desktop asks when the setting is `ask`. A headless service cannot
 * ask; it stops (sleeps) them: a headless service is stopped by Ctrl+C, a service manager
 * or CI, and QEMU processes that outlive the service nobody watches keep memory and CPU
 * while nothing can reach them; sleeping loses nothing (memory is saved, a box wakes on
 * its next use). `leave_running` is there for restarts that must not touch the guests.
 */
export function planQuit(onQuit: OnQuit, running: number, where: 'desktop' | 'headless'): QuitPlan {
  if (running === 0) return { action: 'nothing', running, message: 'No box is running; quitting just stops the service.' };
  const action = onQuit === 'ask' ? (where === 'desktop' ? 'ask' : 'stop_boxes') : onQuit;
  if (action === 'ask') return { action, running, message: `Quitting asks what to do with the ${boxes(running)}.` };
  if (action === 'leave_running') {
    return { action, running, message: `Quitting leaves the ${boxes(running)} running (setting on_quit: leave_running); the next start takes them over.` };
  }
  const why = onQuit === 'ask' ? ' (on_quit is "ask", and a headless service cannot ask)' : '';
  return {
    action,
    running,
    message: `Quitting puts the ${boxes(running)} to sleep first${why}: memory is saved to disk and each wakes on its next exec, file call or request.`,
  };
}

/** The rule in one phrase, whatever is running now (the headless banner, the tray, Settings). */
export function describeOnQuit(onQuit: OnQuit, where: 'desktop' | 'headless'): string {
  if (onQuit === 'leave_running') return 'running boxes keep running (the next start takes them over)';
  if (onQuit === 'ask' && where === 'desktop') return 'you are asked what to do with running boxes';
  return 'running boxes are put to sleep first (memory saved; each wakes on its next use)';
}
