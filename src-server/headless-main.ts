import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cliLine, pointerHolder, publishEndpoint } from './endpoint-file.js';
import { parseListen } from './serving/listen-config.js';
import { LOGIN_LINK_TTL_MS } from './core/sign-in-service.js';
import { describeOnQuit } from './quit/quit-plan.js';
import { startService } from './service.js';
import { boxEnv, defaultDataDir } from './settings.js';
import { onStopSignals } from './quit/stop-signals.js';

/**
 * The headless service (headless.ts loads it): `npm run serve -- --port <p> --data-dir <dir>
 * [--inference-port <p>] [--web-ui <dir>] [--listen <address>[:port]] [--tls] [--tls-cert <pem>
 * --tls-key <pem>] [--allowed-hosts a,b]`. `started` runs once the API answers (what it
 * returns goes to the service log).
 */
// headless.ts imports it dynamically, after the VMs yield (which the unused-exports check does not follow)
// ts-unused-exports:disable-next-line
export async function main(started: () => string | undefined = () => undefined) {
  const env = boxEnv();
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8787' },
      'inference-port': { type: 'string' },
      'data-dir': { type: 'string', default: defaultDataDir(env) },
      'web-ui': { type: 'string' },
      'max-concurrent': { type: 'string' },
      listen: { type: 'string' },
      tls: { type: 'boolean' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'allowed-hosts': { type: 'string' },
    },
  });
  // --listen ADDRESS[:PORT]: beyond loopback the API is HTTPS only (serving/listen-config.ts)
  const listen = parseListen(values.listen ?? env.listen ?? '127.0.0.1');
  const certFile = values['tls-cert'] ?? env.tlsCert;
  const keyFile = values['tls-key'] ?? env.tlsKey;
  const allowedHosts =
    values['allowed-hosts']
      ?.split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean) ??
    env.allowedHosts ??
    [];
  const webUi = values['web-ui'] ?? path.resolve('out/renderer');
  const svc = await startService({
    dataDir: values['data-dir']!,
    host: listen.host,
    port: listen.port ?? Number(values.port),
    tls: certFile || keyFile ? { certFile: certFile ?? '', keyFile: keyFile ?? '' } : values.tls,
    allowedHosts,
    inferencePort: values['inference-port'] ? Number(values['inference-port']) : undefined,
    maxConcurrentPerOrg: values['max-concurrent'] ? Number(values['max-concurrent']) : undefined,
    apiKey: env.apiKey,
    webUiDir: fs.existsSync(webUi) ? webUi : undefined,
  });
  const yielded = started();
  if (yielded) svc.ctx.log.info(yielded);
  const dataDir = path.resolve(values['data-dir']!);
  const tls = svc.ctx.config.tls;
  const unpublish = publishEndpoint({ url: svc.url, inference_url: svc.inferenceUrl, data_dir: dataDir, tls_fingerprint: tls?.fingerprint });
  // Quitting says what it does to running boxes (setting on_quit, GET /v1/service/quit-plan);
  // its handlers come before the banner, so a signal sent on seeing the banner is handled.
  // A process-group signal reaches this process and every launcher that forwards it: the
  // repeats within a second are the same stop (stop-signals.ts); a signal later than that,
  // while boxes are being put to sleep, leaves the rest running and exits.
  const log = svc.ctx.log;
  const say = (line: string) => {
    console.log(line);
    log.info(line.trim());
  };
  onStopSignals({
    duplicate: (signal, ms) => log.info(`${signal} again after ${ms} ms: the same stop (a process-group signal, or a launcher forwarding it)`),
    again: (signal) => {
      say(`${signal} again: leaving the remaining boxes running; the next start takes them over.`);
      unpublish();
      process.exit(130);
    },
    stop: (signal) => {
      void (async () => {
        const quit = svc.ctx.services.quit;
        const plan = await quit.plan('headless');
        say(`${signal}: ${plan.message}`);
        if (plan.action === 'stop_boxes') {
          console.log('  (press Ctrl+C again to leave them running instead)');
          const { slept, failed } = await quit.stopBoxes((line) => console.log(line));
          say(`${slept} box${slept === 1 ? '' : 'es'} asleep${failed ? `, ${failed} left running` : ''}.`);
        }
        unpublish();
        await svc.close();
        console.log('Box service stopped.');
        process.exit(0);
      })().catch((e: unknown) => {
        console.error(`Stopping failed: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
      });
    },
  });
  console.log(`Box service listening on ${svc.url}`);
  if (tls) {
    console.log(`TLS certificate (${tls.source === 'made' ? "made from this service's own CA" : 'given'}: ${tls.files.cert}), SHA-256 fingerprint:`);
    console.log(`  ${tls.fingerprint}`);
    console.log(`  Another machine: \`npx box context add NAME ${svc.url}\` shows this fingerprint on first contact: compare it before accepting.`);
  }
  const served = svc.ctx.config.allowedHosts ?? [];
  if (served.length) console.log(`Host names answered besides loopback: ${served.join(', ')} (--allowed-hosts, BOX_ALLOWED_HOSTS)`);
  if (svc.inferenceUrl !== svc.url) console.log(`Inference API on ${svc.inferenceUrl}`);
  console.log(env.apiKey ? 'API key: the value of BOX_API_KEY' : `API key: in ${svc.apiKeyFile}`);
  console.log(`CLI (finds this service through ${path.join(dataDir, 'endpoint.json')}): ${cliLine({ url: svc.url, data_dir: dataDir })}`);
  const first = pointerHolder();
  if (first)
    console.log(
      `  (a plain \`npx box\` goes on talking to the service of ${first.data_dir}, pid ${first.pid}, ${first.url}; \`npx box status\` lists this one)`,
    );
  if (svc.ctx.config.webUiDir) {
    console.log(`Web UI, one-time sign-in link (valid ${LOGIN_LINK_TTL_MS / 60_000} minutes, single use): ${svc.loginUrl()}`);
    console.log(`  Later: \`npx box login-link\` prints a new link, or paste the API key on the sign-in page of ${svc.url}/`);
  }
  const onQuit = (await svc.ctx.services.quit.settings.get()).on_quit;
  console.log(
    `On Ctrl+C or SIGTERM: ${describeOnQuit(onQuit, 'headless')} (setting on_quit: ${onQuit}; \`npx box settings set on_quit leave_running|stop_boxes\`).`,
  );
}
