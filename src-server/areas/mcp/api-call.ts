import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { callWith, type Answer, type CallRequest, type CallRest, type JsonRouteKey } from '@box/contract/call';
import type { Box } from '@box/contract/boxes';
import { ApiCallError, type BoxApi } from './ports.js';

/** One JSON operation of the contract through the port, typed from contract/routes.ts. */
export function call<K extends JsonRouteKey>(api: BoxApi, key: K, ...args: CallRest<K>): Promise<Answer<K>> {
  const send = async (r: CallRequest) => {
    const res = await api.send({ method: r.method, path: r.path, query: r.query, json: r.json, headers: r.headers, signal: r.signal });
    if (res.status === 204) return undefined;
    return res.json();
  };
  return callWith(send, key, ...args);
}

/** The `box` argument every tool acting on one box takes. */
export const boxRef = z.string().min(1).max(128).describe('The box: its id ("box_...") or its name, as box_list shows them.');

const BOX_ID = /^box_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A tool error the model can act on (not an API answer): e.g. a name that matches no box. */
export class ToolInputError extends Error {}

/**
 * A box id as is (no round trip), or a name looked up among the organization's live boxes
 * (not terminated); several boxes with one name are listed, nothing is guessed.
 */
export async function resolveBoxId(api: BoxApi, ref: string, signal?: AbortSignal): Promise<string> {
  if (BOX_ID.test(ref)) return ref;
  const page = await call(api, 'GET /v1/boxes', { query: { search: ref, limit: 100 }, signal });
  const found = page.data.filter((b) => b.name === ref && b.status !== 'terminated');
  if (found.length === 1) return found[0]!.box_id;
  if (found.length === 0) throw new ToolInputError(`No box is named "${ref}". Call box_list to see the boxes, or box_create to make one.`);
  throw new ToolInputError(`${found.length} boxes are named "${ref}" (${found.map((b) => b.box_id).join(', ')}): pass the id instead.`);
}

/** What a model needs of a box (the full record is long). */
export function boxSummary(b: Box) {
  return {
    box_id: b.box_id,
    name: b.name,
    status: b.status,
    image: b.image,
    vcpu_count: b.vcpu_count,
    memory_mib: b.memory_mib,
    created_at: b.created_at,
    ...(b.error_message ? { error_message: b.error_message } : {}),
    // the checkpoint it stands on (taken, started from or restored to last), so a model can tell where box_restore took it
    ...(b.on_checkpoint_id ? { on_checkpoint_id: b.on_checkpoint_id } : {}),
  };
}

/** A JSON answer as a tool result: text for the model, the same object as structured content. */
export function jsonResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 1) }], structuredContent: value };
}

/** An error's text for the model: the API's message, HTTP status, code and field. */
export function errorText(e: unknown): string {
  if (e instanceof ApiCallError) {
    const { message, code, param } = e.envelope;
    const details = [e.status ? `HTTP ${e.status}` : '', code ? `code ${code}` : '', param ? `field ${param}` : ''].filter(Boolean).join(', ');
    return details ? `${message} (${details})` : message;
  }
  if (e instanceof ToolInputError) return e.message;
  return `Unexpected error: ${(e as Error)?.message ?? String(e)}`;
}

/** An error as an MCP tool error (`isError`), carrying the API's message, code and field. */
function errorResult(e: unknown): CallToolResult {
  return { content: [{ type: 'text', text: errorText(e) }], isError: true };
}

/** Runs a tool body; any failure becomes a tool error result instead of a protocol error. */
export async function guarded(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (e) {
    return errorResult(e);
  }
}
