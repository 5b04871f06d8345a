/**
 * `box`: the command-line client of the box service. It speaks the HTTP API only
 * (BOX_URL, BOX_API_KEY), except `box image`, which builds the guest image locally.
 */
import { dispatch, type Ctx, type Group } from './args.js';
import { BoxClient } from './client.js';
import { loadConfig } from './config.js';
import { CliError } from './errors.js';
import { apps } from './commands/apps.js';
import { boxes } from './commands/boxes.js';
import { code as codeCmd } from './commands/code.js';
import { context, invite } from './commands/context.js';
import { cp } from './commands/cp.js';
import { cron } from './commands/cron.js';
import { desktop } from './commands/desktop.js';
import { egress } from './commands/egress.js';
import { embed } from './commands/embed.js';
import { engines } from './commands/engines.js';
import { exec } from './commands/exec.js';
import { files } from './commands/box-files.js';
import { image } from './commands/image.js';
import { keys } from './commands/keys.js';
import { logs } from './commands/logs.js';
import { mcp } from './commands/mcp.js';
import { e2b } from './commands/e2b.js';
import { loginLink, openapi, status, whoami } from './commands/misc.js';
import { models } from './commands/models.js';
import { policies } from './commands/policies.js';
import { secrets } from './commands/secrets.js';
import { settings } from './commands/settings.js';
import { ssh } from './commands/ssh.js';
import { template } from './commands/templates.js';
import { volumes } from './commands/volumes.js';

const commands: Group = {
  whoami,
  status,
  'login-link': loginLink,
  apps,
  boxes,
  exec,
  code: codeCmd,
  desktop,
  cp,
  files,
  volumes,
  policies,
  egress,
  secrets,
  cron,
  keys,
  invite,
  context,
  ssh,
  image,
  template,
  models,
  embed,
  engines,
  logs,
  mcp,
  e2b,
  settings,
  openapi,
};

const HELP = `Environment: BOX_URL (default: the context in use, BOX_CONTEXT or \`box context use\`, else
the running service's <BOX_DATA_DIR>/endpoint.json, else http://127.0.0.1:8787), BOX_API_KEY (default: <data dir>/api-key), BOX_DATA_DIR (default
~/.box-desktop), BOX_INFERENCE_URL (default: the service's own).
Global flag: --json prints the service's answers as JSON.
Exit codes: the command's own for "box exec"; otherwise 0 ok, 1 error, 2 usage or 400,
3 auth/permission/billing, 4 not found, 5 conflict, 6 rate limited or unavailable.
`;

/** Runs the CLI on `argv` (without node and script); answers the exit code. */
async function main(argv: string[]): Promise<number> {
  const [head, rest] = ((i) => (i < 0 ? [argv, []] : [argv.slice(0, i), argv.slice(i)]))(argv.indexOf('--'));
  const json = head.includes('--json');
  const args = [...head.filter((a) => a !== '--json'), ...rest];
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    return e.exitCode;
  }
  const ctx: Ctx = { client: new BoxClient(config), config, json };
  try {
    if (args.length === 0 || args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
      const code = await dispatch(ctx, commands, 'box', args);
      process.stdout.write(HELP);
      return code ?? 0;
    }
    return (await dispatch(ctx, commands, 'box', args)) ?? 0;
  } catch (e) {
    if (e instanceof CliError) {
      process.stderr.write(`error: ${e.message}\n`);
      return e.exitCode;
    }
    process.stderr.write(`error: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
process.stdout.write('', () => process.exit(code));
