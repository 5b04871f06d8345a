import fs from 'node:fs';
import path from 'node:path';
import { API_KEY_FILE, startService, type ServiceHandle } from '../../src-server/service.js';

/**
 * Owns the in-process service: start, stop, restart on the same loopback port (so the
 * window's origin and its session cookie stay valid across a stop/start).
 */
export class ServiceHost {
  private handle: ServiceHandle | null = null;
  private port = 0;

  constructor(
    readonly dataDir: string,
    private readonly webUiDir: string,
  ) {}

  get running(): boolean {
    return this.handle !== null;
  }

  /** Settings and quitting (what quitting does to running boxes); null while stopped. */
  get quit() {
    return this.handle?.ctx.services.quit ?? null;
  }

  get url(): string | null {
    return this.handle?.url ?? null;
  }

  /** The window's origin: stable once started, also while the service is stopped. */
  get origin(): string | null {
    return this.port ? `http://127.0.0.1:${this.port}` : null;
  }

  async start(): Promise<ServiceHandle> {
    if (this.handle) return this.handle;
    fs.mkdirSync(this.dataDir, { recursive: true });
    this.handle = await startService({
      dataDir: this.dataDir,
      host: '127.0.0.1',
      port: this.port,
      shell: 'desktop',
      webUiDir: fs.existsSync(path.join(this.webUiDir, 'index.html')) ? this.webUiDir : undefined,
    });
    this.port = Number(new URL(this.handle.url).port);
    return this.handle;
  }

  async stop(): Promise<void> {
    const h = this.handle;
    this.handle = null;
    await h?.close();
  }

  loginUrl(): Promise<string> {
    if (!this.handle) throw new Error('The service is not running.');
    return this.handle.loginUrl();
  }

  /** The key minted on first start; null when it was never written (seeded installs). */
  readApiKey(): string | null {
    const file = path.join(this.dataDir, API_KEY_FILE);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : null;
  }
}
