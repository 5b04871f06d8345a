import type { JSHandle, Page } from '@playwright/test';

export class VolumesPage {
  constructor(readonly page: Page) {}
  readonly dropZone = () => this.page.getByTestId('drop-zone');
  readonly entry = (name: string) => this.page.locator(`[data-testid="entry"][data-name="${name}"]`);
  readonly transfer = (name: string) => this.page.locator(`[data-testid="transfer"][data-name="${name}"]`);

  async create(name: string) {
    await this.page.getByTestId('volume-name').fill(name);
    await this.page.getByTestId('volume-create').click();
    await this.page.locator(`[data-testid="volume-item"][data-name="${name}"]`).waitFor();
    await this.page.getByTestId('entries').waitFor();
  }

  /** A DataTransfer built in the page, carrying real File objects. */
  async dataTransfer(files: Array<{ name: string; bytes: Buffer }>): Promise<JSHandle<DataTransfer>> {
    return this.page.evaluateHandle(
      (list) => {
        const dt = new DataTransfer();
        for (const f of list) {
          const bin = atob(f.b64);
          const bytes = new Uint8Array(bin.length);
          for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
          dt.items.add(new File([bytes], f.name, { type: 'application/octet-stream' }));
        }
        return dt;
      },
      files.map((f) => ({ name: f.name, b64: f.bytes.toString('base64') })),
    );
  }

  /** The browser's drag-and-drop sequence onto the drop zone: dragenter, dragover, drop. */
  async drop(dt: JSHandle<DataTransfer>) {
    const zone = this.dropZone();
    await zone.dispatchEvent('dragenter', { dataTransfer: dt });
    await zone.dispatchEvent('dragover', { dataTransfer: dt });
    await zone.dispatchEvent('drop', { dataTransfer: dt });
  }

  /** Records every progress percentage a transfer row shows (to prove progress is live). */
  async watchProgress(name: string) {
    await this.page.evaluate((n) => {
      const seen: number[] = [];
      (window as unknown as { __progress: Record<string, number[]> }).__progress ??= {};
      (window as unknown as { __progress: Record<string, number[]> }).__progress[n] = seen;
      new MutationObserver(() => {
        const el = document.querySelector(`[data-testid="transfer"][data-name="${n}"] [data-testid="transfer-progress"]`);
        const p = el ? Number(el.getAttribute('data-percent')) : NaN;
        if (!Number.isNaN(p) && seen[seen.length - 1] !== p) seen.push(p);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    }, name);
  }

  progressSeen(name: string): Promise<number[]> {
    return this.page.evaluate((n) => (window as unknown as { __progress: Record<string, number[]> }).__progress[n], name);
  }

  /** Slows uploads down (DevTools network emulation) so progress and cancel can be seen. */
  async throttleUploads(bytesPerSecond: number) {
    const cdp = await this.page.context().newCDPSession(this.page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
    return () => cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  }
}
