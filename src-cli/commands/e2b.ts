import fs from 'node:fs';
import path from 'node:path';
import { dispatch, parse, type Command, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { json } from '../output.js';
import { contextsPath } from '../../sdk/typescript/src/contexts.js';

/*
 * `box e2b env`: the variables E2B's SDKs and CLI read, for the service in use (BOX_URL, a
 * context, or the local one), as shell `export` lines: `eval "$(npx box e2b env)"`. A context
 * served with the service's own CA also gets NODE_EXTRA_CA_CERTS (that CA, written next to
 * the contexts file), since E2B's SDK cannot pin a fingerprint; it still talks only to a
 * certificate that CA signed.
 */
const shellQuote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

const env: Command = {
  usage: 'box e2b env [--json]',
  summary: 'E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY (and E2B_VOLUME_API_URL) for the service in use (a context too), as export lines',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    const { url, apiKey, keySource, context, tls } = ctx.config;
    if (!apiKey) throw new CliError(`no API key: set BOX_API_KEY, or start the service so that it writes ${keySource}`, 3);
    // E2B_VOLUME_API_URL: where the SDK's Volume content methods go (it does not read E2B_API_URL for them)
    const vars: Record<string, string> = {
      E2B_API_URL: `${url}/e2b/api`,
      E2B_SANDBOX_URL: `${url}/e2b/sandbox`,
      E2B_API_KEY: apiKey,
      E2B_VOLUME_API_URL: `${url}/e2b/api`,
    };
    const ca = tls?.ca;
    if (context && ca && url.startsWith('https:')) {
      const file = path.join(path.dirname(contextsPath()), 'contexts', `${context}-ca.pem`);
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(file, ca, { mode: 0o644 });
      vars.NODE_EXTRA_CA_CERTS = file;
    }
    if (ctx.json) return json(vars);
    process.stderr.write(`# for ${url}${context ? ` (context ${context})` : ''}: eval "$(npx box e2b env)"\n`);
    for (const [k, v] of Object.entries(vars)) process.stdout.write(`export ${k}=${shellQuote(v)}\n`);
  },
};

const group: Group = { env };

export const e2b: Command = {
  usage: 'box e2b env',
  summary: "E2B's SDK and CLI against this service (or a context): the variables to set",
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box e2b', argv),
};
