import { z } from 'zod';
import type { RouteSpec, UpgradeSpec } from './route.js';

const toSchema = (s: z.ZodType, io: 'input' | 'output' = 'input') =>
  z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as Record<string, any>;

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'param', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        param: { type: 'string', nullable: true },
        code: { oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
        billing_url: { type: 'string', format: 'uri' },
      },
    },
  },
};

/** E2B's error body (routes with `errors: 'e2b'`, e2b/): `code` is the HTTP status. */
const E2B_ERROR_SCHEMA = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'integer' }, message: { type: 'string' } },
};

/** Content types of a route's success answer: its JSON schema and/or its declared stream kind. */
const KIND_TYPES = {
  ndjson: { 'application/x-ndjson': { schema: { type: 'string', description: 'One JSON event a line' } } },
  bytes: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  sse: { 'text/event-stream': { schema: { type: 'string', description: 'Server-sent events' } } },
} as const;

function responseContent(s: RouteSpec): Record<string, unknown> {
  return {
    ...(s.response ? { 'application/json': { schema: toSchema(s.response, 'output') } } : {}),
    ...(s.responseKind ? KIND_TYPES[s.responseKind] : {}),
    ...(s.streamEvents
      ? {
          'text/event-stream': {
            schema: {
              ...toSchema(s.streamEvents, 'output'),
              description:
                'With `stream: true` (beyond the spec): server-sent events, each `data` one of these objects (Responses and Messages name each event by its `type`; Chat Completions sends bare `data:` chunks, then `data: [DONE]`).',
            },
          },
        }
      : {}),
  };
}

/** The OpenAPI document, generated from the same zod schemas that validate requests. */
export function buildOpenApi(specs: RouteSpec[], upgrades: UpgradeSpec[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const s of specs) {
    const p = s.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['path', s.params],
      ['query', s.query],
    ] as const) {
      if (!schema) continue;
      const js = toSchema(schema);
      for (const [name, prop] of Object.entries<Record<string, unknown>>(js.properties ?? {})) {
        parameters.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: prop });
      }
    }
    const op: Record<string, unknown> = {
      operationId: `${s.method}_${s.path.replace(/^\/(v1\/)?/, '').replace(/[/:{}-]+/g, '_')}`,
      summary: s.summary,
      tags: [s.tag],
      parameters,
      responses: {
        '200': { description: 'Success', content: responseContent(s) },
        default: {
          description: 'Error',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${s.errors === 'e2b' ? 'E2BError' : 'Error'}` } } },
        },
      },
    };
    if (s.body) op.requestBody = { required: true, content: { 'application/json': { schema: toSchema(s.body) } } };
    if (s.rawBody) op.requestBody = { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } };
    if (s.auth === 'none') op.security = [];
    else if (s.errors === 'e2b') op.security = [{ e2bApiKey: [] }, { bearer: [] }];
    (paths[p] ??= {})[s.method] = op;
  }
  for (const u of upgrades) (paths[u.path.replace(/:([A-Za-z_]+)/g, '{$1}')] ??= {}).get = upgradeOp(u);
  return {
    openapi: '3.0.3',
    info: { title: 'Box Compute and Inference Service (Box Desktop)', version },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, e2bApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: { Error: ERROR_SCHEMA, E2BError: E2B_ERROR_SCHEMA },
    },
    security: [{ bearer: [] }],
    paths,
  };
}

/** A WebSocket endpoint: `GET` with `Upgrade: websocket`, answered 101; its messages under `x-websocket`. */
function upgradeOp(u: UpgradeSpec) {
  return {
    operationId: `ws_${u.path.replace(/^\/(v1\/)?/, '').replace(/[/:{}-]+/g, '_')}`,
    summary: u.summary,
    description: 'A WebSocket endpoint (beyond the spec): open it with `Upgrade: websocket`; each message is one JSON object.',
    tags: [u.area],
    parameters: [{ name: 'Upgrade', in: 'header', required: true, schema: { type: 'string', enum: ['websocket'] } }],
    responses: {
      '101': { description: 'Switching Protocols: the connection is a WebSocket' },
      default: { description: 'Error (no upgrade)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
    ...(u.messages ? { 'x-websocket': { client: toSchema(u.messages.client), server: toSchema(u.messages.server, 'output') } } : {}),
  };
}
