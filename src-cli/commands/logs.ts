import type { ServiceLogEntry } from '@box/contract/service-admin';
import { intArg, parse, type Command } from '../args.js';
import { CliError } from '../errors.js';
import { json } from '../output.js';
import { followFor, readEventStream } from '../sse.js';

type Entry = ServiceLogEntry;

const LEVELS = ['info', 'warn', 'error'];
/** A field as `key=value` (quoted when it has a space, `=` or a quote), as the service's terminal writes it. */
const field = ([k, v]: [string, unknown]) => `${k}=${typeof v === 'string' && /[\s="]/.test(v) ? JSON.stringify(v) : String(v)}`;
const line = (e: Entry) =>
  `${e.at.replace('T', ' ').slice(0, 23)}  ${e.level.toUpperCase().padEnd(5)} ${e.message}${e.fields ? `  ${Object.entries(e.fields).map(field).join(' ')}` : ''}\n`;

/** `box logs`: the service's own log (this run, from memory; the file on disk has older runs). */
export const logs: Command = {
  usage: 'box logs [-f] [--level info|warn|error] [-n lines] [--search text] [--seconds s]',
  summary: "The service's log (this run); -f follows it live; the file with older runs is named at the end",
  async run(ctx, argv) {
    const { values } = parse(argv, this.usage, {
      follow: { type: 'boolean', short: 'f' },
      level: { type: 'string' },
      lines: { type: 'string', short: 'n', default: '100' },
      search: { type: 'string' },
      seconds: { type: 'string' },
    });
    if (values.level !== undefined && !LEVELS.includes(values.level)) throw new CliError(`--level must be one of ${LEVELS.join(', ')}`, 2);
    const limit = intArg(values.lines, 'lines', 1, 5000);
    const seconds = values.seconds === undefined ? undefined : Number(values.seconds);
    if (seconds !== undefined && !(seconds > 0)) throw new CliError('--seconds must be a positive number', 2);
    const query = { level: values.level, limit, search: values.search };
    if (!values.follow) {
      const page = await ctx.client.call('GET /v1/service/log', { query });
      if (ctx.json) return json(page);
      for (const e of page.data) process.stdout.write(line(e));
      if (page.data.length === 0) process.stderr.write('(no log entries at this level yet)\n');
      process.stderr.write(`${page.dropped ? `${page.dropped} older entries of this run are only in the file; ` : ''}older runs: ${page.file}\n`);
      return;
    }
    const ac = followFor(seconds);
    const res = await ctx.client.raw('GET', '/v1/service/log', { query: { ...query, stream: 1 }, headers: { accept: 'text/event-stream' }, signal: ac.signal });
    await readEventStream(
      res.body!,
      (event, data) => {
        if (event === 'entry') process.stdout.write(ctx.json ? `${JSON.stringify(data)}\n` : line(data as Entry));
      },
      ac.signal,
    );
  },
};
