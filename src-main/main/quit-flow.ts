import type { MessageBoxOptions, MessageBoxReturnValue } from 'electron';
import type { QuitService } from '../../src-server/quit/module.js';

type Choice = 'stop_boxes' | 'leave_running' | 'cancel';

/** The quit dialog's buttons, in order; Cancel last (Escape). */
const BUTTONS = ['Put them to sleep and quit', 'Leave them running and quit', 'Cancel'];

/** The dialog for `running` boxes (the decision itself is planQuit: src-server/quit/quit-plan.ts). */
export function quitDialog(running: number): MessageBoxOptions {
  const n = running === 1 ? '1 box is' : `${running} boxes are`;
  return {
    type: 'question',
    buttons: BUTTONS,
    defaultId: 0,
    cancelId: 2,
    noLink: true,
    title: 'Quit Box Desktop',
    message: `${n} running. What should happen to ${running === 1 ? 'it' : 'them'}?`,
    detail:
      'Asleep: memory is saved to disk and each box wakes on its next exec, file call or request, exactly where it was.\n' +
      'Running: the VMs go on without the app; the next start takes them over.',
    checkboxLabel: 'Remember my choice (Settings → When quitting)',
  };
}

/** The dialog's answer as a choice, and whether to store it as the on_quit setting. */
export function choiceOf(r: Pick<MessageBoxReturnValue, 'response' | 'checkboxChecked'>): { choice: Choice; remember: boolean } {
  const choice: Choice = r.response === 0 ? 'stop_boxes' : r.response === 1 ? 'leave_running' : 'cancel';
  return { choice, remember: choice !== 'cancel' && r.checkboxChecked };
}

/**
 * Quitting the desktop app: follows `on_quit`, or asks when it is `ask` and boxes run.
 * Answers false when the user cancelled (the app keeps running).
 */
export async function beforeQuit(quit: QuitService, show: (o: MessageBoxOptions) => Promise<MessageBoxReturnValue>): Promise<boolean> {
  const plan = await quit.plan('desktop');
  let action = plan.action;
  if (action === 'ask') {
    const { choice, remember } = choiceOf(await show(quitDialog(plan.running)));
    if (choice === 'cancel') return false;
    if (remember) await quit.settings.set({ on_quit: choice });
    action = choice;
  }
  if (action === 'stop_boxes') await quit.stopBoxes();
  return true;
}
