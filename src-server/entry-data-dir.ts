import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

/**
 * The data dir the headless entry (headless.ts) starts on, found before the settings module
 * (zod, the contract) is loaded: `--data-dir`, else BOX_DATA_DIR, else ~/.box-desktop, as
 * settings.ts's defaultDataDir (entry-data-dir.test.ts keeps the two equal).
 */
export function entryDataDir(argv: string[], env: Record<string, string | undefined>): string {
  const { values } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' } }, strict: false });
  if (typeof values['data-dir'] === 'string') return values['data-dir'];
  return env.BOX_DATA_DIR || path.join(env.HOME || os.homedir(), '.box-desktop');
}
