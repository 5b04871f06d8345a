import type { Http } from './http.js';
import { ndjson } from './exec.js';
import { op } from './ops.js';
import type { CodeContext, CodeError, CodeExecutionData, CodeLanguage, CodeResult, CreateContextBody } from './types.js';

/** A finished run, with `text`: the main result's text/plain (`runCode('6 * 7').text === '42'`). */
export interface CodeExecution extends CodeExecutionData {
  readonly text: string | undefined;
}

export type CodeEvent =
  | { type: 'stdout' | 'stderr'; data: string }
  | { type: 'result'; result: CodeResult }
  | { type: 'error'; error: CodeError }
  | { type: 'end'; execution: CodeExecution };

export interface RunCodeOptions {
  /** Language of the box's default context to use (default python); ignored with `context`. */
  language?: CodeLanguage;
  /** A context (or its id) from `code.createContext()`. */
  context?: CodeContext | string;
  env?: Record<string, string>;
  /** Seconds. */
  timeout?: number;
  signal?: AbortSignal;
}

/** @internal */
export function withText(e: CodeExecutionData): CodeExecution {
  const main = e.results.find((r) => r.is_main_result) ?? undefined;
  return Object.defineProperty({ ...e }, 'text', { get: () => main?.['text/plain'], enumerable: false }) as CodeExecution;
}

/** The box's code interpreter: runs and contexts. */
export class BoxCode {
  /** @internal */
  constructor(
    private readonly http: Http,
    private readonly boxId: string,
  ) {}

  private get base() {
    return `/v1/boxes/${encodeURIComponent(this.boxId)}/code`;
  }
  private ctx(context: CodeContext | string) {
    return { box_id: this.boxId, context_id: typeof context === 'string' ? context : context.id };
  }

  private runBody(code: string, o: RunCodeOptions) {
    const context_id = typeof o.context === 'string' ? o.context : o.context?.id;
    return { code, language: context_id ? undefined : o.language, context_id, env: o.env, timeout: o.timeout };
  }

  /** Runs code and answers when it is done. */
  async run(code: string, o: RunCodeOptions = {}): Promise<CodeExecution> {
    return withText(await op(this.http, 'POST /v1/boxes/:box_id/code/run', { params: { box_id: this.boxId }, body: this.runBody(code, o), signal: o.signal }));
  }

  /** Runs code and yields its output, results and error as they happen; the last event is `end`. */
  async *runStream(code: string, o: RunCodeOptions = {}): AsyncGenerator<CodeEvent> {
    const res = await this.http.request('POST', `${this.base}/run`, {
      query: { stream: 1 },
      json: this.runBody(code, o),
      headers: { accept: 'application/x-ndjson' },
      signal: o.signal,
    });
    for await (const ev of ndjson<CodeEvent>(res)) yield ev.type === 'end' ? { type: 'end', execution: withText(ev.execution) } : ev;
  }

  /** A new context (a kernel of its own: default python, cwd /root unless given). */
  createContext(o: CreateContextBody = {}): Promise<CodeContext> {
    return op(this.http, 'POST /v1/boxes/:box_id/code/contexts', { params: { box_id: this.boxId }, body: o });
  }
  async listContexts(): Promise<CodeContext[]> {
    return (await op(this.http, 'GET /v1/boxes/:box_id/code/contexts', { params: { box_id: this.boxId } })).data;
  }
  deleteContext(context: CodeContext | string): Promise<{ id: string; deleted: true }> {
    return op(this.http, 'DELETE /v1/boxes/:box_id/code/contexts/:context_id', { params: this.ctx(context) });
  }
  /** A fresh kernel in the same context (its variables are gone). */
  restartContext(context: CodeContext | string): Promise<CodeContext> {
    return op(this.http, 'POST /v1/boxes/:box_id/code/contexts/:context_id/restart', { params: this.ctx(context) });
  }
}
