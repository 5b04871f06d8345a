import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const require = createRequire(import.meta.url);

/**
 * in-box-client.ts with its SDKs as one CommonJS file for the box's node (Debian's, 18):
 * undici is the 6.x line the AI SDK depends on (resolved as that package sees it), since
 * undici 7 needs node >= 20.18.
 */
export async function bundleInBoxClient(): Promise<string> {
  const undici = createRequire(require.resolve('@ai-sdk/provider-utils')).resolve('undici');
  const out = await build({
    entryPoints: [path.join(path.dirname(fileURLToPath(import.meta.url)), 'in-box-client.ts')],
    bundle: true,
    platform: 'node',
    target: 'node18',
    format: 'cjs',
    write: false,
    minify: true,
    logLevel: 'silent',
    alias: { undici },
  });
  return out.outputFiles[0]!.text;
}
