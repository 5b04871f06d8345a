import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cliLine, publishEndpoint } from './endpoint-file.js';
import { LOGIN_LINK_TTL_MS } from './core/sign-in-routes.js';
import { startService } from './service.js';

/** `npm run serve -- --port <p> --data-dir <dir> [--inference-port <p>] [--web-ui <dir>]` */
async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8787' },
      'inference-port': { type: 'string' },
      'data-dir': { type: 'string', default: process.env.BOX_DATA_DIR ?? path.join(process.env.HOME ?? '.', '.box-desktop') },
      'web-ui': { type: 'string' },
      'max-concurrent': { type: 'string' },
    },
  });
  const webUi = values['web-ui'] ?? path.resolve('out/renderer');
  const svc = await startService({
    dataDir: values['data-dir']!,
    port: Number(values.port),
    inferencePort: values['inference-port'] ? Number(values['inference-port']) : undefined,
    maxConcurrentPerOrg: values['max-concurrent'] ? Number(values['max-concurrent']) : undefined,
    apiKey: process.env.BOX_API_KEY || undefined,
    webUiDir: fs.existsSync(webUi) ? webUi : undefined,
  });
  const dataDir = path.resolve(values['data-dir']!);
  const unpublish = publishEndpoint({ url: svc.url, inference_url: svc.inferenceUrl, data_dir: dataDir });
  console.log(`Box service listening on ${svc.url}`);
  if (svc.inferenceUrl !== svc.url) console.log(`Inference API on ${svc.inferenceUrl}`);
  console.log(process.env.BOX_API_KEY ? 'API key: the value of BOX_API_KEY' : `API key: in ${svc.apiKeyFile}`);
  console.log(`CLI (finds this service through ${path.join(dataDir, 'endpoint.json')}): ${cliLine({ url: svc.url, data_dir: dataDir })}`);
  if (svc.ctx.config.webUiDir) {
    console.log(`Web UI, one-time sign-in link (valid ${LOGIN_LINK_TTL_MS / 60_000} minutes, single use): ${svc.loginUrl()}`);
    console.log(`  Later: \`npx box login-link\` prints a new link, or paste the API key on the sign-in page of ${svc.url}/`);
  }
  const stop = async () => {
    unpublish();
    await svc.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
