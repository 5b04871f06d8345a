import { expect, type Page } from '@playwright/test';

export class BoxesPage {
  constructor(readonly page: Page) {}
  readonly status = () => this.page.getByTestId('box-status');
  readonly terminalText = () => this.page.locator('[data-testid="terminal"] .xterm-rows');

  async create(name: string, opts: { app?: string; size?: 's' | 'm' | 'l' } = {}) {
    await this.page.getByTestId('box-new').click();
    const dialog = this.page.getByTestId('create-box-dialog');
    if (opts.app) await dialog.getByTestId('box-app').fill(opts.app);
    await dialog.getByTestId('box-name').fill(name);
    await dialog.getByTestId(`size-${opts.size ?? 's'}`).click();
    await dialog.getByTestId('create-box-submit').click();
    // Creation answers once the box runs; the dialog then opens the box's page (or shows the API's error).
    await expect(this.page.getByTestId('box-title').or(dialog.getByTestId('error'))).toBeVisible({ timeout: 600_000 });
    await expect(dialog.getByTestId('error')).toHaveCount(0);
    await expect(this.page.getByTestId('box-title')).toHaveText(name);
  }

  async openShell() {
    await this.page.getByTestId('terminal-connect').click();
    await expect(this.page.getByTestId('terminal-panel')).toHaveAttribute('data-state', 'open', { timeout: 60_000 });
    await this.page.locator('[data-testid="terminal"] .xterm').click();
  }

  async type(line: string) {
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
  }

  /** Sleep and Reboot ask for a second click (issue 29). */
  async action(op: 'pause' | 'resume' | 'sleep' | 'reboot') {
    await this.page.getByTestId(`action-${op}`).click();
    if (op === 'sleep' || op === 'reboot') await this.page.getByTestId(`action-${op}`).click();
  }
}
