import { createRequire } from 'node:module';
import path from 'node:path';
import type { TestService } from '../../../test-support/harness.js';
import { startFakeUpstream, type FakeUpstream } from './fake-upstreams.js';
import { startInferenceService } from './service.js';

const require = createRequire(import.meta.url);

/** The file of an npm package's binary (`pkg`'s folder + `rel`), or null when the package is not installed. */
export function packageBin(pkg: string, rel: string): string | null {
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), rel);
  } catch {
    return null;
  }
}

/** The gateway with two scripted upstreams behind it, `an` (Anthropic style) and `oa` (OpenAI style), as the agent CLI tests drive them. */
export async function startGatewayWithUpstreams(): Promise<{ svc: TestService; an: FakeUpstream; oa: FakeUpstream; close(): Promise<void> }> {
  const svc = await startInferenceService();
  const an = await startFakeUpstream('anthropic');
  const oa = await startFakeUpstream('openai');
  await svc.api('/v1/engines', { method: 'POST', json: { name: 'an', kind: 'anthropic', base_url: an.url } });
  await svc.api('/v1/engines', { method: 'POST', json: { name: 'oa', kind: 'openai', base_url: oa.url } });
  return {
    svc,
    an,
    oa,
    async close() {
      await svc.close();
      await an.close();
      await oa.close();
    },
  };
}
