import type { RouteRegistrar } from '../http/route.js';
import { BoxIdParams } from '../contract/boxes.js';
import { CancelBody, ExecBody, ExecParams, ResizeBody, StdinQuery, type ExecEvent } from '../contract/exec.js';
import { conflict, tooLarge } from '../http/api-errors.js';
import type { BoxAccess } from './box-access.js';
import type { ExecService } from './exec-service.js';

const HEARTBEAT_MS = 10_000;
const START_HOLD_MS = 10;
const STDIN_CHUNK_LIMIT = 8 * 1024 * 1024;

export function execRoutes(r: RouteRegistrar, svc: { execs: ExecService; access: BoxAccess }) {
  const { access } = svc;
  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/exec',
    area: 'box',
    tag: 'exec',
    params: BoxIdParams,
    body: ExecBody,
    idempotent: false, // streams; repeat-safety comes from the body's idempotency_key (re-attach)
    plain: true, // served ahead of Express (http/plain-front.ts): the handler uses node:http's API only
    summary: 'Run a command; answers an NDJSON event stream (started, stdout/stderr, heartbeat, exit)',
    handler: async ({ auth, req, res, params, body }) => {
      const box = await access.boxFor(req, auth, params.box_id, 'exec');
      const session = await svc.execs.start(box, body);
      // The headers leave with the first line and the last line with the end of the stream.
      // "started" (replayed at once by attach) waits up to START_HOLD_MS for what follows
      // it: a short command is answered in one write (one wake-up of the client), a longer
      // one says "started" after START_HOLD_MS at the latest.
      res.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store', 'X-Box-Exec-Id': session.id });
      const line = (e: ExecEvent) => `${JSON.stringify(e)}\n`;
      if (body.background) {
        res.end(line({ type: 'started', exec_id: session.id }));
        return;
      }
      await new Promise<void>((resolve) => {
        const beat = setInterval(() => res.write(line({ type: 'heartbeat' })), HEARTBEAT_MS);
        let detach = () => {};
        let ended = false;
        let held = '';
        const hold = setTimeout(() => {
          res.write(held);
          held = '';
        }, START_HOLD_MS);
        const out = (text: string) => {
          const all = held + text;
          held = '';
          clearTimeout(hold);
          return all;
        };
        const stop = () => {
          clearInterval(beat);
          clearTimeout(hold);
          detach();
          resolve();
        };
        // attach replays what happened so far: an exec that already ended (a re-attach by
        // idempotency_key) gives its exit here, before attach returns
        detach = session.attach((e) => {
          if (e.type === 'started') return void (held += line(e));
          if (e.type !== 'exit') return void res.write(out(line(e)));
          ended = true;
          res.end(out(line(e)));
          stop();
        });
        if (!ended) res.on('close', stop);
      });
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/exec/:exec_id/wait',
    area: 'box',
    tag: 'exec',
    params: ExecParams,
    idempotent: false,
    summary: 'Wait for a command to end; answers its status, exit code and output tails',
    handler: async ({ auth, req, params }) => {
      await access.boxFor(req, auth, params.box_id, 'exec');
      return await svc.execs.wait(params.box_id, params.exec_id);
    },
  });

  r.add({
    method: 'put',
    path: '/v1/boxes/:box_id/exec/:exec_id/stdin',
    area: 'box',
    tag: 'exec',
    params: ExecParams,
    query: StdinQuery,
    rawBody: true,
    summary: 'Send stdin bytes at a stream offset (retries are safe); eof=true closes stdin',
    handler: async ({ auth, req, params, query }) => {
      await access.boxFor(req, auth, params.box_id, 'exec');
      const s = svc.execs.session(params.box_id, params.exec_id);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of req as AsyncIterable<Buffer>) {
        size += c.length;
        if (size > STDIN_CHUNK_LIMIT) throw tooLarge(`Send stdin in chunks of at most ${STDIN_CHUNK_LIMIT} bytes.`);
        chunks.push(c);
      }
      if (s.status !== 'running') throw conflict(`Exec ${s.id} has already ended (${s.status}); it reads no more stdin.`, 'failed_precondition');
      const at = await s.writeStdin(query.offset ?? s.stdinThrough, Buffer.concat(chunks)).catch((e: Error) => {
        throw conflict(`stdin could not be delivered: ${e.message}`, 'failed_precondition');
      });
      if (at === 'gap') throw conflict(`stdin offset ${query.offset} is past the ${s.stdinThrough} bytes accepted so far.`, 'failed_precondition', 'offset');
      if (query.eof) s.guest.closeStdin();
      return { accepted_through: at };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/exec/:exec_id/cancel',
    area: 'box',
    tag: 'exec',
    params: ExecParams,
    body: CancelBody.optional(),
    summary: 'Cancel a command: SIGTERM, or SIGKILL with force',
    handler: async ({ auth, req, params, body }) => {
      await access.boxFor(req, auth, params.box_id, 'exec');
      return svc.execs.cancel(params.box_id, params.exec_id, !!body?.force);
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/exec/:exec_id/resize',
    area: 'box',
    tag: 'exec',
    params: ExecParams,
    body: ResizeBody,
    idempotent: false,
    summary: "Resize a command's terminal",
    handler: async ({ auth, req, params, body }) => {
      await access.boxFor(req, auth, params.box_id, 'exec');
      svc.execs.session(params.box_id, params.exec_id).guest.resize(body.cols, body.rows);
      return { exec_id: params.exec_id, cols: body.cols, rows: body.rows };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/exec',
    area: 'box',
    tag: 'exec',
    params: BoxIdParams,
    summary: 'Recent commands of the box, newest first',
    handler: async ({ auth, req, params }) => {
      await access.boxFor(req, auth, params.box_id, 'read');
      return { data: await svc.execs.list(params.box_id) };
    },
  });
}
