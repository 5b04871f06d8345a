import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { invalid } from '../../kernel/domain-errors.js';
import type { CodeLanguage as Language } from '@box/contract/code';
import type { BoxRecord, CodeContextView, CodePort, CodeResultView } from './ports.js';

/** E2B's language names of Box's kernels. */
const LANGUAGES: Record<string, Language> = {
  python: 'python',
  javascript: 'javascript',
  js: 'javascript',
  typescript: 'typescript',
  ts: 'typescript',
  r: 'r',
  bash: 'bash',
};
/** E2B's languages Box has no kernel for, and why. */
const MISSING: Record<string, string> = {
  java: 'Debian packages no Java Jupyter kernel (IJava)',
};

function language(l: string | undefined) {
  if (l === undefined) return undefined;
  const name = l.toLowerCase().trim();
  const found = LANGUAGES[name];
  if (!found) {
    const why = MISSING[name] ? `: ${MISSING[name]}` : '';
    throw invalid(`language "${l}" is not supported on Box${why}. Use python, javascript (js), typescript (ts), r or bash.`, 'language');
  }
  return found;
}

/** Where E2B's contexts work unless told: the home of its `user` (E2B's template). */
const E2B_CWD = '/home/user';
/** The contexts E2B's code interpreter starts with, listed from the start. */
const DEFAULT_LANGUAGES: Language[] = ['python', 'javascript'];

/** E2B's result text: a string's repr comes without its quotes ('a' -> a), as E2B's server gives it. */
function e2bText(text: string): string {
  return text.length >= 2 && ((text.startsWith("'") && text.endsWith("'")) || (text.startsWith('"') && text.endsWith('"'))) ? text.slice(1, -1) : text;
}

const ExecuteBody = z.object({
  code: z.string(),
  context_id: z.string().nullish(),
  language: z.string().nullish(),
  env_vars: z.record(z.string(), z.string()).nullish(),
});
/** How long a cell may stay silent before /execute sends its headers anyway. */
const HEADERS_AFTER_MS = 500;

const ContextBody = z.object({ language: z.string().nullish(), cwd: z.string().nullish() });

/** Box's MIME keys of a result as E2B's result fields. */
const FIELDS: Record<string, string> = {
  'text/plain': 'text',
  'text/html': 'html',
  'text/markdown': 'markdown',
  'image/svg+xml': 'svg',
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'application/pdf': 'pdf',
  'text/latex': 'latex',
  'application/json': 'json',
  'application/javascript': 'javascript',
  'application/vnd.box.chart+json': 'chart',
  'application/vnd.box.data+json': 'data',
};

function e2bResult(r: CodeResultView) {
  const out: Record<string, unknown> = { type: 'result', is_main_result: r.is_main_result };
  for (const [k, v] of Object.entries(r)) if (k !== 'is_main_result') out[FIELDS[k] ?? k] = k === 'text/plain' && typeof v === 'string' ? e2bText(v) : v;
  return out;
}

const e2bContext = (c: CodeContextView) => ({ id: c.id, language: c.language, cwd: c.cwd });

/**
 * The code interpreter's HTTP API as E2B's SDK speaks it (port 49999 behind the sandbox
 * URL): POST /execute streams NDJSON lines (stdout, stderr, result, error,
 * number_of_executions), and /contexts creates, lists, removes and restarts contexts, on
 * Box's code interpreter (the kernels in the box). As E2B's template: the sandbox's `envs`
 * (envsOf) reach every cell, a run's own override them for that cell; contexts work in
 * /home/user; the default python and javascript contexts are listed from the start; a
 * client that goes away mid-cell interrupts it.
 */
export function e2bJupyterRoutes(code: CodePort, boxOf: (req: Request) => BoxRecord, envsOf: (req: Request) => Record<string, string> = () => ({})): Router {
  const r = express.Router();
  r.use(express.json({ limit: '16mb' }));
  const on = (h: (req: Request, res: Response) => Promise<unknown>) => (req: Request, res: Response, next: NextFunction) => {
    h(req, res)
      .then((out) => {
        if (res.headersSent) return;
        if (out === undefined) res.status(204).end();
        else res.json(out);
      })
      .catch(next);
  };
  const body = <T>(s: z.ZodType<T>, b: unknown): T => {
    const p = s.safeParse(b ?? {});
    if (!p.success) throw invalid(`${p.error.issues[0]!.path.join('.') || 'body'}: ${p.error.issues[0]!.message}`, p.error.issues[0]!.path.join('.') || null);
    return p.data;
  };

  r.post(
    '/execute',
    on(async (req, res) => {
      const b = body(ExecuteBody, req.body);
      const box = boxOf(req);
      if (b.context_id && b.language) throw invalid('Only one of context_id or language can be provided.', 'language');
      const lang = b.context_id ? undefined : language(b.language ?? undefined);
      const env = { ...envsOf(req), ...(b.env_vars ?? {}) };
      // the SDK aborts the request at its timeoutMs (or its caller goes): the cell is interrupted
      const gone = new AbortController();
      res.on('close', () => res.writableFinished || gone.abort());
      const line = (o: unknown) => res.write(`${JSON.stringify(o)}\n`);
      const start = () => {
        clearTimeout(early);
        if (res.headersSent) return;
        res.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' });
        res.flushHeaders();
      };
      // E2B's server answers at once and streams: the SDK's request timeout (60 s default)
      // ends at the headers, its timeoutMs covers the cell. A cell that prints nothing for a
      // while gets its headers here; what fails before that (an unknown context, a language
      // without a kernel) still gets its own status.
      const early = setTimeout(start, HEADERS_AFTER_MS);
      try {
        const cell = { code: b.code, context_id: b.context_id ?? undefined, language: lang, env: Object.keys(env).length ? env : undefined };
        const end = await code.run(
          box,
          cell,
          (e) => {
            start();
            if (e.type === 'stdout' || e.type === 'stderr') line({ type: e.type, text: e.data, timestamp: Date.now() * 1000 });
            else if (e.type === 'result') line(e2bResult(e.result));
            else if (e.type === 'error') line({ type: 'error', ...e.error });
          },
          { cwd: E2B_CWD, signal: gone.signal },
        );
        start();
        if (end.execution_count !== null) line({ type: 'number_of_executions', execution_count: end.execution_count });
        line({ type: 'end_of_execution' });
        res.end();
      } finally {
        clearTimeout(early);
      }
    }),
  );
  r.post(
    '/contexts',
    on(async (req) => e2bContext(await code.createContext(boxOf(req), contextBody(body(ContextBody, req.body))))),
  );
  r.get(
    '/contexts',
    on(async (req) => (await code.listContexts(boxOf(req), { defaults: DEFAULT_LANGUAGES, cwd: E2B_CWD })).map(e2bContext)),
  );
  r.delete(
    '/contexts/:id',
    on(async (req) => void (await code.deleteContext(boxOf(req), String(req.params.id)))),
  );
  r.post(
    '/contexts/:id/restart',
    on(async (req) => void (await code.restartContext(boxOf(req), String(req.params.id)))),
  );
  return r;
}

function contextBody(b: z.infer<typeof ContextBody>) {
  return { language: language(b.language ?? undefined), cwd: b.cwd ?? E2B_CWD };
}
