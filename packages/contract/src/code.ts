import { z } from 'zod';
import { idSchema } from './common.js';

/** The code interpreter (issue 25): stateful Python, JavaScript, TypeScript, R and bash contexts in a box. */

/**
 * typescript: Node with each cell transpiled by TypeScript's compiler (types removed, not checked).
 * r: R with IRkernel's display (IRdisplay and repr): values as IRkernel gives them, plots as PNG.
 */
export const CODE_LANGUAGES = ['python', 'javascript', 'typescript', 'r', 'bash'] as const;
export const CodeLanguage = z.enum(CODE_LANGUAGES);
export type CodeLanguage = z.infer<typeof CodeLanguage>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CodeEnv = z.record(z.string().regex(ENV_NAME, 'names must be letters, digits and "_"'), z.string().max(65536));
const ContextId = z
  .string()
  .min(1)
  .max(100)
  .regex(/^ctx_[A-Za-z0-9_-]+$/, 'must be a code context id ("ctx_...")');

export const CreateContextBody = z.strictObject({
  language: CodeLanguage.optional(),
  cwd: z.string().startsWith('/', 'must be an absolute path').max(4096).optional(),
  env: CodeEnv.optional(),
});
export type CreateContextBody = z.infer<typeof CreateContextBody>;

export const ContextParams = z.object({ box_id: idSchema('box', 'box_id'), context_id: ContextId });

export const CodeContext = z.object({
  id: z.string(),
  box_id: z.string(),
  language: CodeLanguage,
  cwd: z.string(),
  created_at: z.string(),
  status: z.enum(['idle', 'busy', 'dead', 'starting']),
});
export type CodeContext = z.infer<typeof CodeContext>;

export const ContextDeleted = z.object({ id: z.string(), deleted: z.literal(true) });

export const RunCodeBody = z.strictObject({
  code: z.string().max(1024 * 1024),
  language: CodeLanguage.optional(),
  context_id: ContextId.optional(),
  env: CodeEnv.optional(),
  /** Seconds; the cell is interrupted (KeyboardInterrupt in Python) when it runs longer. */
  timeout: z.number().positive().max(86400).optional(),
});
export type RunCodeBody = z.infer<typeof RunCodeBody>;

export const RunCodeQuery = z.object({ stream: z.enum(['1', 'true', '0', 'false']).optional() });

/** One output of a cell by MIME type, as Jupyter's display data: base64 for binary types. */
export const CodeResult = z
  .object({
    'text/plain': z.string().optional(),
    'image/png': z.string().optional(),
    'image/jpeg': z.string().optional(),
    'image/svg+xml': z.string().optional(),
    'text/html': z.string().optional(),
    'text/markdown': z.string().optional(),
    'text/latex': z.string().optional(),
    'application/json': z.unknown().optional(),
    'application/pdf': z.string().optional(),
    /**
     * A matplotlib figure's data beside its picture: { type: line | scatter | bar | pie |
     * superchart | unknown, title, elements, axis labels, ticks and scales }, the shape of
     * E2B's result.chart (resources/guest/code/charts.py).
     */
    'application/vnd.box.chart+json': z.record(z.string(), z.unknown()).optional(),
    is_main_result: z.boolean(),
  })
  .passthrough();
export type CodeResult = z.infer<typeof CodeResult>;

export const CodeError = z.object({ name: z.string(), value: z.string(), traceback: z.string() });
export type CodeError = z.infer<typeof CodeError>;

export const CodeExecution = z.object({
  context_id: z.string(),
  language: CodeLanguage,
  execution_count: z.number().int().nullable(),
  results: z.array(CodeResult),
  stdout: z.string(),
  stderr: z.string(),
  error: CodeError.nullable(),
  truncated: z.boolean(),
  duration_ms: z.number(),
});
export type CodeExecution = z.infer<typeof CodeExecution>;

/** `?stream=1` / `Accept: application/x-ndjson`: one line per event, as it happens. */
export type CodeEvent =
  | { type: 'stdout' | 'stderr'; data: string }
  | { type: 'result'; result: CodeResult }
  | { type: 'error'; error: CodeError }
  | { type: 'end'; execution: CodeExecution };
