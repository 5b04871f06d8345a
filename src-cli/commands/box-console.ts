import { intArg, parse, type Command } from '../args.js';
import { seg } from '../client.js';
import { CliError } from '../errors.js';
import { json } from '../output.js';
import { resolveBoxId } from '../resolve.js';
import { followFor, readEventStream } from '../sse.js';

/** `box boxes console`: the box's serial console (kernel and boot messages, getty), raw as the guest wrote it. */
export const consoleCmd: Command = {
  usage: 'box boxes console <box> [-f] [-n lines] [--bytes N] [--seconds s]',
  summary: "A box's serial console log (boot messages); -f follows it live",
  async run(ctx, argv) {
    const { values, positionals } = parse(
      argv,
      this.usage,
      {
        follow: { type: 'boolean', short: 'f' },
        lines: { type: 'string', short: 'n' },
        bytes: { type: 'string' },
        seconds: { type: 'string' },
      },
      [1, 1],
    );
    const query = { lines: intArg(values.lines, 'lines', 1, 100_000), bytes: intArg(values.bytes, 'bytes', 1, 1024 * 1024) };
    const seconds = values.seconds === undefined ? undefined : Number(values.seconds);
    if (seconds !== undefined && !(seconds > 0)) throw new CliError('--seconds must be a positive number', 2);
    const boxId = await resolveBoxId(ctx.client, positionals[0]!);
    if (!values.follow) {
      const tail = await ctx.client.call('GET /v1/boxes/:box_id/console', { params: { box_id: boxId }, query });
      if (ctx.json) return json(tail);
      if (tail.truncated) process.stderr.write(`(last ${tail.size_bytes - tail.offset} of ${tail.size_bytes} bytes; -n and --bytes show more)\n`);
      process.stdout.write(tail.data);
      if (!tail.data) process.stderr.write('(the console is empty: the VM has not written to it yet)\n');
      return;
    }
    const ac = followFor(seconds);
    const res = await ctx.client.raw('GET', `/v1/boxes/${seg(boxId)}/console`, {
      query: { ...query, stream: 1 },
      headers: { accept: 'text/event-stream' },
      signal: ac.signal,
    });
    await readEventStream(
      res.body!,
      (event, data) => {
        if (event === 'chunk') process.stdout.write(ctx.json ? `${JSON.stringify(data)}\n` : (data as { data: string }).data);
        if (event === 'reset') process.stderr.write('\n(the console log started over: a new disk)\n');
      },
      ac.signal,
    );
  },
};
