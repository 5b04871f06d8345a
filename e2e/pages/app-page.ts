import type { Page } from '@playwright/test';

/** The shell: sidebar navigation, shortcuts and the command palette. */
export class AppPage {
  constructor(readonly page: Page) {}

  async open(view: string) {
    await this.page.getByTestId(`nav-${view}`).click();
    await this.page.getByTestId(`view-${view}`).waitFor();
  }

  async paletteGo(label: string) {
    await this.page.keyboard.press('Control+k');
    await this.page.getByTestId('palette-input').fill(label);
    await this.page.keyboard.press('Enter');
  }
}
