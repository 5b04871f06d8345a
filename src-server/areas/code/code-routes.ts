import type { RouteRegistrar } from '../../platform/http/route.js';
import type { BoxAccess } from '../boxes/ports.js';
import { BoxIdParams } from '@box/contract/boxes';
import { ContextParams, CreateContextBody, RunCodeBody, RunCodeQuery, type CodeEvent } from '@box/contract/code';
import type { CodeService } from './code-service.js';

const HEARTBEAT_MS = 10_000;

/** The code interpreter's routes (contract: contract/code.ts, docs: code-api.md). */
export function codeRoutes(code: CodeService, access: BoxAccess) {
  return (r: RouteRegistrar) => {
    r.add({
      method: 'post',
      path: '/v1/boxes/:box_id/code/contexts',
      area: 'box',
      tag: 'code',
      params: BoxIdParams,
      body: CreateContextBody,
      summary: 'Start a code context (a python, javascript, typescript, r or bash kernel) in the box',
      handler: async ({ auth, req, params, body }) => code.createContext(await access.boxFor(req, auth, params.box_id, 'exec'), body),
    });

    r.add({
      method: 'get',
      path: '/v1/boxes/:box_id/code/contexts',
      area: 'box',
      tag: 'code',
      params: BoxIdParams,
      summary: "The box's code contexts",
      handler: async ({ auth, req, params }) => ({ data: await code.listContexts(await access.boxFor(req, auth, params.box_id, 'exec')) }),
    });

    r.add({
      method: 'delete',
      path: '/v1/boxes/:box_id/code/contexts/:context_id',
      area: 'box',
      tag: 'code',
      params: ContextParams,
      summary: 'Stop a code context and forget its state',
      handler: async ({ auth, req, params }) => code.deleteContext(await access.boxFor(req, auth, params.box_id, 'exec'), params.context_id),
    });

    r.add({
      method: 'post',
      path: '/v1/boxes/:box_id/code/contexts/:context_id/restart',
      area: 'box',
      tag: 'code',
      params: ContextParams,
      summary: "Restart a code context's kernel (its state is cleared)",
      handler: async ({ auth, req, params }) => code.restartContext(await access.boxFor(req, auth, params.box_id, 'exec'), params.context_id),
    });

    r.add({
      method: 'post',
      path: '/v1/boxes/:box_id/code/run',
      area: 'box',
      tag: 'code',
      params: BoxIdParams,
      query: RunCodeQuery,
      body: RunCodeBody,
      idempotent: false, // runs code; with ?stream=1 an NDJSON stream
      summary:
        "Run code in a context (default: the box's python context); answers the execution, or with ?stream=1 (Accept: application/x-ndjson) NDJSON events: stdout, stderr, result, error, then end",
      handler: async ({ auth, req, res, params, query, body }) => {
        const box = await access.boxFor(req, auth, params.box_id, 'exec');
        const stream = query.stream === '1' || query.stream === 'true' || /application\/x-ndjson/.test(req.headers.accept ?? '');
        if (!stream) return code.run(box, body);
        let started = false;
        const line = (e: CodeEvent) => {
          if (!started) {
            started = true;
            res.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' });
          }
          res.write(`${JSON.stringify(e)}\n`);
        };
        // errors before the first event (unknown context, box not running) answer as usual
        const beat = setInterval(() => started && res.write('{"type":"heartbeat"}\n'), HEARTBEAT_MS);
        try {
          const execution = await code.run(box, body, line);
          line({ type: 'end', execution });
          res.end();
        } catch (e) {
          if (!started) throw e;
          res.end(`${JSON.stringify({ type: 'failed', message: (e as Error).message })}\n`);
        } finally {
          clearInterval(beat);
        }
      },
    });
  };
}
