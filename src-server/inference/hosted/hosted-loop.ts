import type { BoxRecord } from '../../boxes/ports.js';
import { invalid } from '../../core/domain-errors.js';
import type { Principal } from '../../core/principal.js';
import type { Logger } from '../../logger.js';
import { emptyUsage, type DeltaSink, type HostedEvent, type HostedStep, type NativeHostedTool, type NativeRequest, type NativeResult } from '../native.js';
import type { HostedBoxPort } from './box-port.js';
import { newCall, runCall } from './hosted-calls.js';
import { isHostedCall } from './hosted-tools.js';
import { hostedTurns } from './hosted-turns.js';

/** One engine call (the service's `execute`: tool-call caps, schema validation). */
type Generate = (req: NativeRequest, onDelta?: DeltaSink) => Promise<NativeResult>;

interface HostedRun {
  auth: Principal;
  /** The response being made: an `auto` box is named after it. */
  responseId: string;
  /** The response this one continues (`previous_response_id`): its box is reused. */
  previousId?: string;
  signal?: AbortSignal;
  onDelta?: DeltaSink;
  onHosted?: (e: HostedEvent) => void;
}

/** An `auto` box's name: the response that made it, so the UI shows where it came from. */
const hostedBoxName = (responseId: string) => `resp-${responseId.replace(/^[a-z]+[_-]/, '').toLowerCase()}`.slice(0, 63);

/**
 * The hosted tools' loop (issue 34): the engine sees hosted tools as functions; when the
 * model calls one, the gateway runs it in a box (hosted-calls.ts), appends the call and
 * its result to the conversation and calls the engine again, until the model answers in
 * text or calls a client function (which goes back to the client as usual). At most
 * `maxCalls` hosted calls per request; beyond, the response stops `incomplete`.
 */
export class HostedLoop {
  constructor(
    private port: HostedBoxPort,
    private maxCalls: number,
    /** The box a stored response's hosted calls used. */
    private containerOf: (responseId: string) => Promise<string | undefined>,
    /** Seconds an idle `auto` box lives (the reaper's TTL). */
    private ttlS: number,
    private log: Logger,
  ) {}

  /** Before anything is stored or streamed: explicit boxes must be the caller's to use (as the API's `exec`); no background runs. */
  async check(req: NativeRequest, auth: Principal, background: boolean): Promise<void> {
    if (!req.hosted?.length) return;
    if (background) throw invalid('Hosted tools (code_interpreter, shell, code execution) do not run in background requests.', 'background');
    for (const h of req.hosted) if (h.container !== 'auto') await this.port.boxFor(auth, h.container.boxId);
  }

  async run(req: NativeRequest, run: HostedRun, generate: Generate): Promise<NativeResult> {
    const hosted = req.hosted ?? [];
    const steps: HostedStep[] = [];
    const usage = emptyUsage();
    const boxes = this.boxes(run);
    let calls = 0;
    let messages = req.messages;
    for (;;) {
      const res = await generate({ ...req, messages }, run.onDelta && roundSink(run.onDelta, hosted));
      for (const k of Object.keys(usage) as (keyof typeof usage)[]) usage[k] += res.usage[k];
      const all = res.toolCalls ?? [];
      const mine = all.filter((c) => isHostedCall(hosted, c.name));
      const client = all.filter((c) => !isHostedCall(hosted, c.name));
      const done = (over: Partial<NativeResult>): NativeResult => ({
        ...res,
        ...(client.length ? { toolCalls: client } : { toolCalls: undefined, stop: res.stop === 'tool_calls' ? 'end' : res.stop }),
        usage,
        ...(steps.length ? { hosted: steps } : {}),
        ...(boxes.used() ? { containerId: boxes.used(), containerExpiresAt: Date.now() + this.ttlS * 1000 } : {}),
        ...over,
      });
      if (!mine.length || res.stop === 'max_tokens') return done({});
      if (calls + mine.length > this.maxCalls) return done({ hostedLimit: true });
      calls += mine.length;
      const step: HostedStep = { text: res.text, calls: [] };
      steps.push(step);
      for (const [index, c] of mine.entries()) {
        const at = { step: steps.length - 1, index };
        const h = isHostedCall(hosted, c.name)!;
        let box: BoxRecord | null = null;
        let why = '';
        try {
          box = await boxes.of(h);
        } catch (e) {
          why = (e as Error).message;
        }
        const call = newCall(c, h, box?.box_id ?? '');
        step.calls.push(call);
        run.onHosted?.({ type: 'started', call, ...at });
        if (box) {
          run.onHosted?.({ type: 'running', call, ...at });
          await runCall(this.port, box, call);
        } else {
          call.status = 'failed';
          call.result = `No sandbox for this call: ${why}`;
        }
        run.onHosted?.({ type: 'done', call, ...at });
      }
      if (client.length) return done({ text: '', stop: 'tool_calls' });
      if (run.signal?.aborted) return done({});
      messages = [...req.messages, ...hostedTurns({ hosted: steps })];
    }
  }

  /** The boxes of one request: explicit ones checked as the API would, one `auto` box made (or reused) on first use. */
  private boxes(run: HostedRun) {
    let auto: Promise<BoxRecord> | null = null;
    let used: string | undefined;
    const take = (b: BoxRecord) => {
      if (b.status === 'failed') throw new Error(`the box ${b.box_id} failed to start: ${b.error_message ?? ''}`);
      used ??= b.box_id;
      return b;
    };
    return {
      used: () => used,
      of: async (h: NativeHostedTool): Promise<BoxRecord> => {
        if (h.container !== 'auto') return take(await this.port.boxFor(run.auth, h.container.boxId));
        auto ??= this.autoBox(run);
        return take(await auto);
      },
    };
  }

  /** The box of the conversation (previous response), when it is live and the caller may use it; else a new one. */
  private async autoBox(run: HostedRun): Promise<BoxRecord> {
    const prior = run.previousId ? await this.containerOf(run.previousId) : undefined;
    if (prior) {
      try {
        return await this.port.boxFor(run.auth, prior);
      } catch (e) {
        this.log.info(`hosted tools: box ${prior} of ${run.previousId} cannot be reused (${(e as Error).message}); making a new one`);
      }
    }
    return this.port.create(run.auth, hostedBoxName(run.responseId));
  }
}

/**
 * One engine round's deltas: text as it comes; hosted calls are not client calls (the loop
 * reports them as hosted events), and the client calls are numbered without them.
 */
function roundSink(onDelta: DeltaSink, hosted: NativeHostedTool[]): DeltaSink {
  const index = new Map<number, number | null>();
  let next = 0;
  return (d) => {
    if (d.type === 'text') return onDelta(d);
    if (d.type === 'tool_call') {
      const mine = !!isHostedCall(hosted, d.name);
      index.set(d.index, mine ? null : next++);
      if (!mine) onDelta({ ...d, index: index.get(d.index)! });
      return;
    }
    const i = index.get(d.index);
    if (i !== undefined && i !== null) onDelta({ ...d, index: i });
  };
}
