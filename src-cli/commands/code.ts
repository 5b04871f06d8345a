import { readFileSync } from 'node:fs';
import { parse, type Command } from '../args.js';
import { CliError } from '../errors.js';
import { json } from '../output.js';
import { resolveBoxId } from '../resolve.js';
import { CODE_LANGUAGES, type CodeEvent, type CodeExecution, type CodeResult } from '@box/contract/code';
import { ndjsonLines } from '@box/contract/ndjson';

const LANGS: readonly string[] = CODE_LANGUAGES;
const LANG_USAGE = CODE_LANGUAGES.join('|');

/** What a result shows in a terminal: its text, and which rich types it also has. */
function describe(r: CodeResult): string {
  const rich = Object.keys(r).filter((k) => k !== 'text/plain' && k !== 'is_main_result');
  const text = r['text/plain'] ?? '';
  const note = rich.length ? `[${rich.map((k) => `${k}${typeof r[k] === 'string' ? `, ${(r[k] as string).length} chars` : ''}`).join('; ')}]` : '';
  return [text, note].filter(Boolean).join('\n');
}

/**
 * `box code <box> [-l python|javascript|typescript|r|bash] [FILE|-]`: runs code in the box's stateful
 * context of that language (or --context id): stdout and stderr stream as they come,
 * results print as text (rich types are named; --json prints the whole execution), an
 * error prints its traceback and exits 1.
 */
export const code: Command = {
  usage: `box code <box> [-l ${LANG_USAGE}] [--context id] [--timeout s] [--json] [FILE|-]`,
  summary: "Run code in a box's stateful Python, JavaScript, TypeScript, R or bash context (code from FILE or stdin)",
  async run(ctx, argv) {
    const { values, positionals } = parse(
      argv,
      this.usage,
      { language: { type: 'string', short: 'l' }, context: { type: 'string' }, timeout: { type: 'string' } },
      [1, 2],
    );
    if (values.language && !LANGS.includes(values.language)) throw new CliError(`-l ${values.language}: expected one of ${LANGS.join(', ')}`, 2);
    const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
    if (timeout !== undefined && !(timeout > 0)) throw new CliError(`--timeout ${values.timeout}: expected seconds`, 2);
    const file = positionals[1] ?? '-';
    const source = file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
    const boxId = await resolveBoxId(ctx.client, positionals[0]!);
    const body = { code: source, language: values.context ? undefined : values.language, context_id: values.context, timeout };
    const res = await ctx.client.raw('POST', `/v1/boxes/${encodeURIComponent(boxId)}/code/run?stream=1`, { json: body });
    let execution: CodeExecution | undefined;
    const take = (line: string) => {
      const e = JSON.parse(line) as CodeEvent | { type: 'failed'; message: string } | { type: 'heartbeat' };
      if (e.type === 'failed') throw new CliError(`box: ${e.message}`, 1);
      if (e.type === 'end') execution = e.execution;
      if (ctx.json) return;
      if (e.type === 'stdout') process.stdout.write(e.data);
      else if (e.type === 'stderr') process.stderr.write(e.data);
      else if (e.type === 'result') process.stdout.write(`${describe(e.result)}\n`);
      else if (e.type === 'error') process.stderr.write(`${e.error.traceback || `${e.error.name}: ${e.error.value}`}\n`);
    };
    for await (const line of ndjsonLines(res)) take(line);
    if (!execution) throw new CliError('box: the run ended without its result', 1);
    if (ctx.json) json(execution);
    if (execution.truncated && !ctx.json) process.stderr.write('box: output was cut at the cap\n');
    return execution.error ? 1 : 0;
  },
};
