import type { Page } from '@playwright/test';

export class PlaygroundPage {
  constructor(readonly page: Page) {}
  readonly inboxDeliveries = () => this.page.getByTestId('inbox-delivery');
  readonly attempts = () => this.page.getByTestId('attempt');
  readonly outputText = () => this.page.getByTestId('output-text');
  readonly rawRequest = () => this.page.getByTestId('raw-request');
  readonly rawResponse = () => this.page.getByTestId('raw-response');
  readonly deliveryState = () => this.page.getByTestId('delivery-state');

  async setInboxStatus(status: number) {
    await this.page.getByTestId('inbox-url').waitFor();
    await this.page.getByTestId('inbox-status').selectOption(String(status));
  }

  async send(opts: { style: 'responses' | 'chat' | 'messages'; model: string; prompt: string }) {
    await this.page.getByTestId(`style-${opts.style}`).click();
    await this.page.getByTestId('model-select').selectOption(opts.model);
    await this.page.getByTestId('prompt').fill(opts.prompt);
    await this.page.getByTestId('send').click();
  }
}
