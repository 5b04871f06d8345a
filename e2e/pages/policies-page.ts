import type { Page } from '@playwright/test';

export class PoliciesPage {
  constructor(readonly page: Page) {}
  readonly fieldError = () => this.page.getByTestId('field-error');
  readonly errorLine = () => this.page.locator('[data-error-line]');
  readonly item = (name: string) => this.page.locator(`[data-testid="policy-item"][data-name="${name}"]`);
  readonly usedBy = (boxName: string) => this.page.locator(`[data-testid="policy-box"][data-name="${boxName}"]`);

  async startNew() {
    await this.page.getByTestId('policy-new').click();
    await this.page.getByTestId('policy-editor').waitFor();
  }

  async edit(name: string, document: string) {
    await this.page.getByTestId('policy-name').fill(name);
    await this.page.getByTestId('policy-document').fill(document);
  }

  save() {
    return this.page.getByTestId('policy-save').click();
  }

  async attachTo(boxId: string) {
    await this.page.getByTestId('attach-box-select').selectOption(boxId);
    await this.page.getByTestId('attach-box').click();
  }
}
