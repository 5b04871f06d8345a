import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SetLevelRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { ToolExtra } from './streams.js';

const SEVERITY: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
/** The level each server's client asked for (logging/setLevel); `info` until it asks. */
const levels = new WeakMap<McpServer, LoggingLevel>();

/**
 * `logging/setLevel`: log notifications below the level are not sent from then on. A server
 * serves one client (stdio, or one /mcp session); a server reused across stateless /mcp
 * requests forgets it when it is handed to the next request (`forgetLogLevel`).
 */
export function handleLogLevel(server: McpServer) {
  server.server.setRequestHandler(SetLevelRequestSchema, (req) => {
    levels.set(server, req.params.level);
    return {};
  });
}

export function forgetLogLevel(server: McpServer) {
  levels.delete(server);
}

export type ToolLog = (level: LoggingLevel, data: unknown) => void;

/**
 * `notifications/message` about one tool call (its command's output, its errors, the image
 * builds it waits on), sent on that call's own stream ahead of its answer, when at or above
 * the client's level. `logger` names the tool.
 */
export function toolLog(server: McpServer, extra: ToolExtra, logger: string): ToolLog {
  return (level, data) => {
    if (SEVERITY.indexOf(level) < SEVERITY.indexOf(levels.get(server) ?? 'info')) return;
    void extra.sendNotification({ method: 'notifications/message', params: { level, logger, data } }).catch(() => {});
  };
}
