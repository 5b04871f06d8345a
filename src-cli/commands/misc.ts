import { parse, type Command } from '../args.js';
import { otherServices } from '../config.js';
import { fields, json } from '../output.js';
import { stageLine } from '../progress.js';

export const whoami: Command = {
  usage: 'box whoami [--json]',
  summary: 'Show the organization and key the CLI speaks as',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    const me = await ctx.client.call('GET /v1/whoami');
    if (ctx.json) json(me);
    else fields({ url: ctx.config.url, ...me });
  },
};

export const openapi: Command = {
  usage: 'box openapi',
  summary: 'Print the OpenAPI document of the service',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    json(await ctx.client.call('GET /v1/openapi.json'));
  },
};

export const loginLink: Command = {
  usage: 'box login-link [--json]',
  summary: 'Print a one-time sign-in link for the web UI (valid 10 minutes, single use)',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    const link = await ctx.client.call('POST /v1/ui/login-links');
    if (ctx.json) return json(link);
    process.stdout.write(`${link.url}\n`);
    process.stderr.write(
      `Open it in a browser before ${new Date(link.expires_at).toLocaleTimeString()} (10 minutes, once). Or paste the API key on the sign-in page.\n`,
    );
  },
};

export const status: Command = {
  usage: 'box status [--json]',
  summary: 'Where the service is, what it runs on, what it is still preparing (guest image), and the other services on this machine',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    const st = await ctx.client.call('GET /v1/status');
    const others = otherServices(ctx.config.url);
    if (ctx.json) return json({ ...st, other_services: others });
    fields({
      url: ctx.config.url,
      found_via: ctx.config.urlSource,
      version: st.version,
      data_dir: st.data_dir,
      runtime: st.runtime ?? null,
      accelerator: st.accelerator ?? null,
    });
    for (const s of st.preparation?.stages ?? []) process.stdout.write(`${stageLine(s)}\n`);
    // The other services running on this machine (each on its own data dir), which this `box` does not talk to.
    if (others.length) process.stdout.write(`other services on this machine (BOX_URL=<url> talks to one):\n`);
    for (const o of others) process.stdout.write(`  ${o.url}  data dir ${o.data_dir}  pid ${o.pid}\n`);
  },
};
