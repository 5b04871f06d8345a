import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ExecBody, type ExecEvent } from '@box/contract/exec';
import { GetFileQuery, ListDirQuery, PutFileQuery } from '@box/contract/files';
import { boxRef, call, guarded, jsonResult, resolveBoxId, ToolInputError } from './api-call.js';
import { OutputKeeper, progressReporter, type ToolExtra } from './streams.js';
import { toolLog, type ToolLog } from './logging.js';
import { OutputStreamer } from './output-stream.js';
import { ndjsonLines } from '@box/contract/ndjson';
import type { ApiOf } from './ports.js';

/** Files larger than this are refused by box_read_file (a model's context is smaller still). */
const READ_LIMIT = 4 * 1024 * 1024;

/** The tools' definitions, built once and shared by every server made from them. */
const EXEC_TOOLS = {
  box_exec: {
    title: 'Run a command in a box',
    description:
      'Run a command inside a box and wait for it to finish. A string runs as a shell command line (/bin/sh -c, so pipes, && and redirections work); an array runs that program with those arguments, no shell. ' +
      'Runs as root, in / unless `cwd` is given; state persists between calls (files, installed packages), but each call is a new shell (use cwd/env, not `cd`/`export` from an earlier call). ' +
      'Answers exit_code, stdout and stderr (a non-zero exit_code is a normal answer, not a tool error; very long output keeps its beginning and end). Output streams while the command runs: as log messages (notifications/message, each chunk in full) and, when the call has a progress token, as progress. ' +
      'Sleeping boxes wake up automatically. For Python or JavaScript snippets whose value you want back, box_run_code is simpler.',
    inputSchema: z.object({
      box: boxRef,
      command: ExecBody.shape.command.describe(
        'A shell command line, e.g. "ls -la /root && python3 --version", or argv as an array, e.g. ["python3", "script.py"].',
      ),
      cwd: ExecBody.shape.cwd.describe('Absolute working directory inside the box (default /).'),
      env: ExecBody.shape.env.describe('Extra environment variables, e.g. {"DEBUG": "1"}.'),
      timeout: ExecBody.shape.timeout.describe('Seconds after which the command is killed (exit status timed_out); default: no limit.'),
    }),
    annotations: { destructiveHint: true, openWorldHint: true },
  },
  box_write_file: {
    title: 'Write a file in a box',
    description:
      'Create or replace a file inside a box with the given content (missing parent directories are created). Text by default; pass encoding "base64" to write binary data. Answers the size written.',
    inputSchema: z.object({
      box: boxRef,
      path: PutFileQuery.shape.path.describe('Absolute path of the file in the box, e.g. "/root/app/main.py".'),
      content: z
        .string()
        .max(16 * 1024 * 1024)
        .describe('The whole content of the file.'),
      encoding: z.enum(['text', 'base64']).optional().describe('"text" (default, written as UTF-8) or "base64" (decoded to bytes first).'),
      mode: PutFileQuery.shape.mode.describe('Octal permissions such as "0644" (default) or "0755" for a script.'),
    }),
    annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  box_read_file: {
    title: 'Read a file from a box',
    description:
      'Read one file from inside a box. Answers its content as text when it is UTF-8 text, otherwise as base64 (encoding says which; force one with `encoding`). Files over 4 MiB are refused: look at them with box_exec (head, tail, grep) instead.',
    inputSchema: z.object({
      box: boxRef,
      path: GetFileQuery.shape.path.describe('Absolute path of the file in the box.'),
      encoding: z.enum(['auto', 'text', 'base64']).optional().describe('"auto" (default): text if the file is valid UTF-8, else base64.'),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  box_list_files: {
    title: 'List a directory in a box',
    description:
      'List the entries of a directory inside a box, sorted by name: name, type (file, directory, symlink, other), size in bytes, modified time and mode.',
    inputSchema: z.object({ box: boxRef, path: ListDirQuery.shape.path.describe('Absolute path of the directory (default /).') }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
};

/** box_exec, box_write_file, box_read_file, box_list_files. */
export function registerExecTools(server: McpServer, apiOf: ApiOf) {
  server.registerTool('box_exec', EXEC_TOOLS.box_exec, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const body = { command: args.command, cwd: args.cwd, env: args.env, timeout: args.timeout };
      const run = new ExecCollector(extra, toolLog(server, extra, 'box_exec'), box_id);
      const res = await api.send({ method: 'POST', path: `/v1/boxes/${encodeURIComponent(box_id)}/exec`, json: body, signal: extra.signal });
      try {
        for await (const line of ndjsonLines(res)) if (run.add(JSON.parse(line) as ExecEvent)) break;
      } finally {
        run.flush();
      }
      return jsonResult(run.result());
    }),
  );

  server.registerTool('box_write_file', EXEC_TOOLS.box_write_file, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const bytes = args.encoding === 'base64' ? Buffer.from(args.content, 'base64') : Buffer.from(args.content, 'utf8');
      const res = await api.send({
        method: 'PUT',
        path: `/v1/boxes/${encodeURIComponent(box_id)}/files`,
        query: { path: args.path, mode: args.mode.toString(8).padStart(4, '0') },
        body: bytes,
        signal: extra.signal,
      });
      const r = (await res.json()) as { size_bytes: number };
      return jsonResult({ path: args.path, size_bytes: r.size_bytes });
    }),
  );

  server.registerTool('box_read_file', EXEC_TOOLS.box_read_file, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const res = await api.send({ method: 'GET', path: `/v1/boxes/${encodeURIComponent(box_id)}/files`, query: { path: args.path }, signal: extra.signal });
      const size = Number(res.headers.get('content-length') ?? NaN);
      if (size > READ_LIMIT) {
        await res.body?.cancel();
        throw new ToolInputError(`${args.path} is ${size} bytes, over the 4 MiB box_read_file reads: use box_exec with head, tail or grep.`);
      }
      const bytes = Buffer.from(await res.arrayBuffer());
      const text = args.encoding === 'base64' ? undefined : utf8(bytes);
      if (args.encoding === 'text' && text === undefined) throw new ToolInputError(`${args.path} is not UTF-8 text: read it with encoding "base64".`);
      const mode = Number(res.headers.get('x-box-file-mode') ?? NaN);
      const meta = { path: args.path, size_bytes: bytes.length, ...(Number.isInteger(mode) ? { mode: `0${mode.toString(8)}` } : {}) };
      if (text !== undefined) return { content: [{ type: 'text', text }], structuredContent: { ...meta, encoding: 'text', content: text } };
      const b64 = bytes.toString('base64');
      return { content: [{ type: 'text', text: b64 }], structuredContent: { ...meta, encoding: 'base64', content: b64 } };
    }),
  );

  server.registerTool('box_list_files', EXEC_TOOLS.box_list_files, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const r = await call(api, 'GET /v1/boxes/:box_id/directories', { params: { box_id }, query: { path: args.path }, signal: extra.signal });
      const entries = r.entries.map((e) => ({
        name: e.name,
        type: e.type,
        size: e.size,
        modified: new Date(e.modified_time * 1000).toISOString(),
        mode: `0${e.mode.toString(8)}`,
      }));
      return jsonResult({ path: args.path, entries });
    }),
  );
}

/** Text when the bytes are valid UTF-8 without NUL bytes (a binary tell), else undefined. */
function utf8(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** An exec's events gathered into its answer (output bounded), its output reported as progress. */
class ExecCollector {
  private readonly out = { stdout: new OutputKeeper(), stderr: new OutputKeeper() };
  private readonly progress: (text: string) => void;
  private readonly stream: OutputStreamer;
  private readonly errors: { code: string; message: string }[] = [];
  private execId = '';
  private exit: Extract<ExecEvent, { type: 'exit' }> | undefined;

  constructor(
    extra: ToolExtra,
    private readonly log: ToolLog,
    boxId: string,
  ) {
    this.progress = progressReporter(extra);
    this.stream = new OutputStreamer(log, { box_id: boxId });
  }

  /** Takes one event; answers true at the exit. */
  add(ev: ExecEvent): boolean {
    if (ev.type === 'started') this.execId = ev.exec_id;
    else if (ev.type === 'stdout' || ev.type === 'stderr') {
      const text = this.out[ev.type].add(Buffer.from(ev.data, 'base64'));
      this.progress(text);
      this.stream.add(ev.type, text);
    } else if (ev.type === 'error') {
      this.errors.push({ code: ev.code, message: ev.message });
      this.log('error', { exec_id: this.execId, code: ev.code, message: ev.message });
    } else if (ev.type === 'exit') this.exit = ev;
    return this.exit !== undefined;
  }

  /** Sends the output not yet streamed (before the answer). */
  flush() {
    this.stream.flush();
  }

  result() {
    const { exit, execId, errors, out } = this;
    if (!exit)
      throw new ToolInputError(
        `The exec stream ended without an exit event${execId ? ` (exec ${execId})` : ''}${errors.length ? `: ${errors[0]!.message}` : ''}.`,
      );
    const truncated = out.stdout.truncated || out.stderr.truncated;
    return {
      exit_code: exit.return_code,
      status: exit.status,
      stdout: out.stdout.text(),
      stderr: out.stderr.text(),
      exec_id: execId,
      ...(errors.length ? { errors } : {}),
      ...(truncated ? { truncated: true } : {}),
    };
  }
}
