import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CompleteRequestSchema, ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { call, errorText } from './api-call.js';
import { CONSOLE_TEMPLATE, EGRESS_TEMPLATE, FILE_TEMPLATE, readBoxUri } from './box-uris.js';
import { ApiCallError, type ApiOf } from './ports.js';
import type { ToolExtra } from './streams.js';
import { completePromptArg } from './prompts.js';
import { subscriptionsOf } from './subscriptions.js';

/** Live boxes listed as resources (console and egress log each), newest first. */
const LISTED_BOXES = 100;

async function liveBoxes(apiOf: ApiOf, extra: ToolExtra) {
  const page = await call(apiOf(extra), 'GET /v1/boxes', { query: { limit: LISTED_BOXES }, signal: extra.signal });
  return page.data.filter((b) => b.status !== 'terminated');
}

/**
 * A box's files, console log and egress log as MCP resources (templates; the logs of live
 * boxes are listed), with subscriptions (subscriptions.ts) and completion of `box_id`.
 * Reading goes through the box API like the tools, so its access checks and errors apply.
 */
export function registerBoxResources(server: McpServer, apiOf: ApiOf) {
  const read = async (uri: URL, extra: ToolExtra) => {
    try {
      return { contents: [await readBoxUri(apiOf(extra), uri.href, extra.signal)] };
    } catch (e) {
      // -32002: the spec's "resource not found"; other failures carry the API's words too.
      throw new McpError(e instanceof ApiCallError && e.status === 404 ? -32002 : ErrorCode.InternalError, errorText(e), { uri: uri.href });
    }
  };
  server.registerResource(
    'box-file',
    new ResourceTemplate(FILE_TEMPLATE, { list: undefined }),
    {
      title: 'A file in a box',
      description: 'A file inside a box, e.g. box://my-box/files/root/notes.txt (the box by id or name): text, or base64 for binary files; at most 4 MiB.',
    },
    (uri, _vars, extra) => read(uri, extra),
  );
  const logs = [
    { name: 'box-console', template: CONSOLE_TEMPLATE, what: 'console', title: "A box's serial console log", mimeType: 'text/plain' },
    { name: 'box-egress-log', template: EGRESS_TEMPLATE, what: 'egress log', title: "A box's egress (network) log", mimeType: 'application/json' },
  ];
  for (const l of logs) {
    const list = async (extra: ToolExtra) => ({
      resources: (await liveBoxes(apiOf, extra)).map((b) => ({
        uri: l.template.replace('{box_id}', b.box_id),
        name: `${b.name} ${l.what}`,
        mimeType: l.mimeType,
      })),
    });
    const description =
      l.what === 'console'
        ? "The last 64 KiB of the box's serial console (kernel and boot messages, its init)."
        : "The box's newest 100 outbound connections and HTTP requests, with their egress-policy verdicts.";
    server.registerResource(l.name, new ResourceTemplate(l.template, { list }), { title: l.title, description, mimeType: l.mimeType }, (uri, _vars, extra) =>
      read(uri, extra),
    );
  }
  server.server.setRequestHandler(SubscribeRequestSchema, (req, extra) => {
    subscriptionsOf(server).subscribe(req.params.uri, apiOf(extra));
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (req) => {
    subscriptionsOf(server).unsubscribe(req.params.uri);
    return {};
  });
  // box_id of the templates completes to the live boxes' names and ids, and the prompts'
  // arguments (prompts.ts); nothing else completes.
  server.server.setRequestHandler(CompleteRequestSchema, async (req, extra) => {
    const { ref, argument } = req.params;
    if (ref.type === 'ref/prompt') {
      const values = await completePromptArg(apiOf, extra, ref.name, argument.name, argument.value);
      return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
    }
    if (ref.type !== 'ref/resource' || argument.name !== 'box_id' || ![FILE_TEMPLATE, CONSOLE_TEMPLATE, EGRESS_TEMPLATE].includes(ref.uri)) {
      return { completion: { values: [], hasMore: false } };
    }
    const values = (await liveBoxes(apiOf, extra)).flatMap((b) => [b.name, b.box_id]).filter((v) => v.startsWith(argument.value));
    return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
  });
}
