import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const SDK_DIR = path.resolve(import.meta.dirname, '..');

/** `npm pack` of the SDK, installed offline into `<dir>/app` (an empty ESM project). Answers the app dir and the tarball. */
export function packAndInstall(dir: string): { app: string; tgz: string } {
  execFileSync('npm', ['pack', '--pack-destination', dir], { cwd: SDK_DIR, stdio: 'pipe' });
  const tgz = path.join(
    dir,
    fs.readdirSync(dir).find((f) => f.endsWith('.tgz'))!,
  );
  const app = path.join(dir, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), '{"name":"app","private":true,"type":"module"}');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tgz], { cwd: app, stdio: 'pipe' });
  return { app, tgz };
}

/** The code block that follows `<!-- sdk-example:NAME -->` in the README, exactly as written. */
export function readmeExample(name: 'ts' | 'py'): string {
  const readme = fs.readFileSync(path.resolve(SDK_DIR, '../../README.md'), 'utf8');
  const m = new RegExp(`<!-- sdk-example:${name} -->\\n(?:<!-- prettier-ignore -->\\n)?\\n?\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(readme);
  if (!m) throw new Error(`README.md has no sdk-example:${name} block`);
  return `${m[1]}\n`;
}
