import type { ServiceSettings } from '@box/contract/service-admin';
import { dispatch, parse, type Command, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { fields, json } from '../output.js';

type Settings = ServiceSettings;

const ON_QUIT = ['ask', 'stop_boxes', 'leave_running'];

const group: Group = {
  get: {
    usage: 'box settings get',
    summary: 'Service settings, and what quitting would do now',
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const [s, desktop, headless] = await Promise.all([
        ctx.client.call('GET /v1/service/settings'),
        ctx.client.call('GET /v1/service/quit-plan', { query: { where: 'desktop' } }),
        ctx.client.call('GET /v1/service/quit-plan', { query: { where: 'headless' } }),
      ]);
      if (ctx.json) return json({ ...s, quit_plan: { desktop, headless } });
      fields({ on_quit: s.on_quit, 'quitting (desktop)': desktop.message, 'quitting (headless)': headless.message });
    },
  },
  set: {
    usage: 'box settings set on_quit ask|stop_boxes|leave_running',
    summary: 'Change a service setting (on_quit: what quitting does to running boxes)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [2, 2]);
      const [key, value] = positionals as [string, string];
      if (key !== 'on_quit') throw new CliError(`unknown setting "${key}"; settings: on_quit`, 2);
      if (!ON_QUIT.includes(value)) throw new CliError(`on_quit must be one of ${ON_QUIT.join(', ')}`, 2);
      const s = await ctx.client.call('PATCH /v1/service/settings', { body: { on_quit: value as Settings['on_quit'] } });
      if (ctx.json) return json(s);
      fields({ ...s });
    },
  },
};

export const settings: Command = {
  usage: 'box settings get|set',
  summary: 'Service settings (on_quit: what quitting does to running boxes)',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box settings', argv.length ? argv : ['get']),
};
