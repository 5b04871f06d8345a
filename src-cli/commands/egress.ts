import type { Answer } from '@box/contract/call';
import { dispatch, parse, type Command, type Group } from '../args.js';
import { seg } from '../client.js';
import { CliError } from '../errors.js';
import { readEventStream } from '../sse.js';
import { fields, json } from '../output.js';
import { resolveBoxId } from '../resolve.js';

/** One egress log entry, as listed and as streamed. */
type Entry = Answer<'GET /v1/boxes/:box_id/egress-log'>['data'][number];

const VERDICTS = ['allow', 'deny', 'respond'];
const filterOpts = { verdict: { type: 'string' }, host: { type: 'string' } } as const;
function checkVerdict(v: string | undefined) {
  if (v !== undefined && !VERDICTS.includes(v)) throw new CliError(`--verdict must be one of ${VERDICTS.join(', ')}`, 2);
}

/** One line per entry: time, verdict, status, method, URL, rule, bytes and duration. */
function line(e: Entry): string {
  const url = e.path === null ? `${e.host}:${e.port}` : `${e.scheme}://${e.host}${[80, 443].includes(e.port) ? '' : `:${e.port}`}${e.path}`;
  const rule = e.rule_index === null ? '' : ` rule ${e.rule_index}`;
  const ms = e.duration_ms === null ? '' : ` ${e.duration_ms}ms`;
  return `${e.at.slice(11, 23)}  ${e.verdict.padEnd(7)} ${String(e.status ?? '-').padEnd(3)} ${e.method.padEnd(7)} ${url}${rule}  ↑${e.bytes_out} ↓${e.bytes_in}${ms}\n`;
}

/** Calls `on` with each `entry` event of a text/event-stream body. */
const readEvents = (body: ReadableStream<Uint8Array>, on: (e: Entry) => void) => readEventStream(body, (event, data) => event === 'entry' && on(data as Entry));

const group: Group = {
  tail: {
    usage: 'box egress tail <box> [--verdict allow|deny|respond] [--host h] [-n lines] [--seconds s]',
    summary: "Follow a box's egress log live (each https request with method, path and verdict)",
    async run(ctx, argv) {
      const { values, positionals } = parse(
        argv,
        this.usage,
        { ...filterOpts, lines: { type: 'string', short: 'n', default: '10' }, seconds: { type: 'string' } },
        [1, 1],
      );
      checkVerdict(values.verdict);
      const seconds = values.seconds === undefined ? undefined : Number(values.seconds);
      if (seconds !== undefined && !(seconds > 0)) throw new CliError('--seconds must be a positive number', 2);
      const boxId = await resolveBoxId(ctx.client, positionals[0]!);
      const ac = new AbortController();
      const res = await ctx.client.raw('GET', `/v1/boxes/${seg(boxId)}/egress-log`, {
        query: { stream: 1, limit: Math.max(1, Math.min(100, Number(values.lines) || 10)), verdict: values.verdict, host: values.host },
        headers: { accept: 'text/event-stream' },
        signal: ac.signal,
      });
      if (seconds !== undefined) setTimeout(() => ac.abort(), seconds * 1000).unref();
      try {
        await readEvents(res.body!, (e) => process.stdout.write(ctx.json ? `${JSON.stringify(e)}\n` : line(e)));
      } catch (e) {
        if (!ac.signal.aborted) throw e;
      }
    },
  },
  log: {
    usage: 'box egress log <box> [--verdict v] [--host h] [--limit n]',
    summary: "A box's egress log, newest first",
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { ...filterOpts, limit: { type: 'string', default: '50' } }, [1, 1]);
      checkVerdict(values.verdict);
      const boxId = await resolveBoxId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('GET /v1/boxes/:box_id/egress-log', {
        params: { box_id: boxId },
        query: { limit: values.limit, verdict: values.verdict, host: values.host },
      });
      if (ctx.json) return json(res.data);
      for (const e of res.data) process.stdout.write(line(e));
    },
  },
  ca: {
    usage: 'box egress ca [--rotate]',
    summary: 'The egress CA certificate every box trusts (PEM); --rotate replaces it (running boxes trust the new one at once, the old one for a grace period)',
    async run(ctx, argv) {
      const { values } = parse(argv, this.usage, { rotate: { type: 'boolean' } });
      const ca = values.rotate
        ? await ctx.client.call('POST /v1/egress/ca/rotate')
        : { ...(await ctx.client.call('GET /v1/egress/ca')), boxes_updated: undefined, boxes_failed: undefined };
      if (ctx.json) return json(ca);
      const pushed = values.rotate ? { running_boxes_updated: ca.boxes_updated, boxes_failed: ca.boxes_failed?.join(', ') || null } : {};
      fields({ fingerprint_sha256: ca.fingerprint_sha256, created_at: ca.created_at, ...pushed });
      process.stdout.write(ca.certificate);
    },
  },
};

export const egress: Command = {
  usage: 'box egress tail|log|ca',
  summary: 'Egress of boxes: the live log, the CA boxes trust',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box egress', argv),
};
