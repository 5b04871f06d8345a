import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RunCodeBody, type CodeEvent, type CodeExecution } from '@box/contract/code';
import { boxRef, guarded, resolveBoxId, ToolInputError } from './api-call.js';
import { progressReporter, type ToolExtra } from './streams.js';
import { toolLog, type ToolLog } from './logging.js';
import { OutputStreamer } from './output-stream.js';
import { ndjsonLines } from '@box/contract/ndjson';
import type { ApiOf } from './ports.js';

/** The tools' definitions, built once (the schemas from the contract's RunCodeBody). */
const CODE_TOOLS = {
  box_run_code: {
    title: 'Run code in a box (Jupyter-style)',
    description:
      'Run a Python (default), JavaScript or bash snippet in a box\'s code interpreter, like a Jupyter notebook cell: variables, imports and functions persist between calls in the same context; the value of the last expression comes back as `text` (e.g. "6 * 7" answers "42"), with stdout, stderr and, on an exception, its name, value and traceback. ' +
      'Plots (matplotlib: plt.show() or a figure as the last expression) come back as images, with what they plot as data (series and points, bars, slices). numpy, pandas and matplotlib are available in Python. ' +
      'For shell commands and programs use box_exec.',
    inputSchema: z.object({
      box: boxRef,
      code: RunCodeBody.shape.code.describe('The code to run, e.g. "import math\\nmath.sqrt(2)".'),
      language: RunCodeBody.shape.language.describe('python (default), javascript, typescript, r or bash; each language has its own default context per box.'),
      context_id: RunCodeBody.shape.context_id.describe(
        'Run in this context ("ctx_..."), e.g. one with its own cwd or env; default: the language\'s default context.',
      ),
      env: RunCodeBody.shape.env.describe('Environment variables for this run only, e.g. {"DEBUG": "1"}.'),
      timeout: RunCodeBody.shape.timeout.describe('Seconds after which the run is interrupted (KeyboardInterrupt in Python).'),
    }),
    annotations: { destructiveHint: true, openWorldHint: true },
  },
};

/** box_run_code. */
export function registerCodeTools(server: McpServer, apiOf: ApiOf) {
  server.registerTool('box_run_code', CODE_TOOLS.box_run_code, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const { box: _box, ...body } = args;
      const res = await api.send({
        method: 'POST',
        path: `/v1/boxes/${encodeURIComponent(box_id)}/code/run`,
        query: { stream: 1 },
        json: body,
        signal: extra.signal,
      });
      return toolResult(await collectCode(res, extra, toolLog(server, extra, 'box_run_code'), box_id));
    }),
  );
}

async function collectCode(res: Response, extra: ToolExtra, log: ToolLog, boxId: string): Promise<CodeExecution> {
  const progress = progressReporter(extra);
  const stream = new OutputStreamer(log, { box_id: boxId });
  try {
    for await (const line of ndjsonLines(res)) {
      const ev = JSON.parse(line) as CodeEvent;
      if (ev.type === 'stdout' || ev.type === 'stderr') {
        progress(ev.data);
        stream.add(ev.type, ev.data);
      } else if (ev.type === 'end') {
        if (ev.execution.error) log('error', { box_id: boxId, name: ev.execution.error.name, value: ev.execution.error.value });
        return ev.execution;
      }
    }
  } finally {
    stream.flush();
  }
  throw new ToolInputError('The code run ended without its result (the stream broke off).');
}

/** Terminal colours in a kernel's traceback: noise for a model. */
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
const CHART = 'application/vnd.box.chart+json';
/** A chart's data in a tool answer: a model reads the numbers; 10,000 points a series would crowd its context. */
const CHART_TEXT_MAX = 16 * 1024;
const capped = (s: string) => (s.length > CHART_TEXT_MAX ? `${s.slice(0, CHART_TEXT_MAX)}… (cut at ${CHART_TEXT_MAX} characters; the HTTP API has it all)` : s);

/**
 * The main result's text, outputs and error as text for the model; images as image content.
 * A run that raised is a tool error (`isError`) whose text carries the exception and its
 * traceback, so a host shows it as a failure and the model can fix its code.
 */
function toolResult(x: CodeExecution): CallToolResult {
  const main = x.results.find((r) => r.is_main_result);
  const structured = {
    text: main?.['text/plain'] ?? null,
    stdout: x.stdout,
    stderr: x.stderr,
    error: x.error,
    results: x.results.map((r) => Object.keys(r).filter((k) => k !== 'is_main_result')),
    context_id: x.context_id,
    language: x.language,
    execution_count: x.execution_count,
    duration_ms: x.duration_ms,
    ...(x.truncated ? { truncated: true } : {}),
  };
  const parts: string[] = [];
  if (structured.text !== null) parts.push(structured.text);
  if (x.stdout) parts.push(`stdout:\n${x.stdout}`);
  if (x.stderr) parts.push(`stderr:\n${x.stderr}`);
  if (x.error) parts.push(`${x.error.name}: ${x.error.value}\n${x.error.traceback.replace(ANSI, '')}`);
  const content: CallToolResult['content'] = [{ type: 'text', text: parts.join('\n\n') || '(no output)' }];
  for (const r of x.results) {
    const chart = r[CHART];
    if (chart) content.push({ type: 'text', text: `chart data (${String(chart.type)}): ${capped(JSON.stringify(chart))}` });
    if (r['image/png']) content.push({ type: 'image', data: r['image/png'], mimeType: 'image/png' });
    else if (r['image/jpeg']) content.push({ type: 'image', data: r['image/jpeg'], mimeType: 'image/jpeg' });
    else if (!r.is_main_result && r['text/plain']) content.push({ type: 'text', text: r['text/plain'] });
  }
  return { content, structuredContent: structured, ...(x.error ? { isError: true } : {}) };
}
