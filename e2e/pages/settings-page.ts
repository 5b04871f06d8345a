import type { Page } from '@playwright/test';

export class SettingsPage {
  constructor(readonly page: Page) {}
  readonly keyRows = () => this.page.getByTestId('api-key-row');
  readonly accelerator = () => this.page.getByTestId('accelerator');
  readonly credits = () => this.page.getByTestId('credits-value');

  async createKey(name: string, scope: 'organization' | 'user' = 'organization'): Promise<string> {
    await this.page.getByTestId('create-key').click();
    const dialog = this.page.getByTestId('create-key-dialog');
    await dialog.getByTestId('key-name').fill(name);
    await dialog.getByRole('combobox').selectOption(scope);
    await dialog.getByTestId('create-key-submit').click();
    const secret = await dialog.getByTestId('new-key-secret').inputValue();
    await this.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    return secret;
  }
}
