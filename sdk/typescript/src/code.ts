import type { Http } from './http.js';
import { ndjson } from './exec.js';

export type CodeLanguage = 'python' | 'javascript' | 'bash';

/** A code interpreter context: a kernel with its own variables. */
export interface CodeContext {
  id: string;
  box_id: string;
  language: CodeLanguage;
  cwd: string;
  created_at: string;
  status: 'idle' | 'busy' | 'dead' | 'starting';
}

/** One rich result of a run, by MIME type (`text/plain`, `image/png` as base64, ...). */
export interface CodeResult {
  'text/plain'?: string;
  'image/png'?: string;
  'image/jpeg'?: string;
  'image/svg+xml'?: string;
  'text/html'?: string;
  'text/markdown'?: string;
  'text/latex'?: string;
  'application/json'?: unknown;
  'application/pdf'?: string;
  is_main_result: boolean;
}

export interface CodeError {
  name: string;
  value: string;
  traceback: string;
}

/** A finished run as the API answers it. */
export interface CodeExecutionData {
  context_id: string;
  language: CodeLanguage;
  execution_count: number | null;
  results: CodeResult[];
  stdout: string;
  stderr: string;
  error: CodeError | null;
  truncated: boolean;
  duration_ms: number;
}

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

  private runBody(code: string, o: RunCodeOptions) {
    const context_id = typeof o.context === 'string' ? o.context : o.context?.id;
    return { code, language: context_id ? undefined : o.language, context_id, env: o.env, timeout: o.timeout };
  }

  /** Runs code and answers when it is done. */
  async run(code: string, o: RunCodeOptions = {}): Promise<CodeExecution> {
    return withText(await this.http.json<CodeExecutionData>('POST', `${this.base}/run`, { json: this.runBody(code, o), signal: o.signal }));
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

  createContext(o: { language?: CodeLanguage; cwd?: string; env?: Record<string, string> } = {}): Promise<CodeContext> {
    return this.http.json('POST', `${this.base}/contexts`, { json: o });
  }
  async listContexts(): Promise<CodeContext[]> {
    return (await this.http.json<{ data: CodeContext[] }>('GET', `${this.base}/contexts`)).data;
  }
  deleteContext(context: CodeContext | string): Promise<{ id: string; deleted: true }> {
    return this.http.json('DELETE', `${this.base}/contexts/${encodeURIComponent(typeof context === 'string' ? context : context.id)}`);
  }
  restartContext(context: CodeContext | string): Promise<CodeContext> {
    return this.http.json('POST', `${this.base}/contexts/${encodeURIComponent(typeof context === 'string' ? context : context.id)}/restart`);
  }
}
