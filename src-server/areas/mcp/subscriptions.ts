import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { fingerprint, parseBoxUri } from './box-uris.js';
import type { BoxApi } from './ports.js';

/** How often a subscribed resource is looked at. */
const POLL_MS = 1000;

interface Watch {
  timer: NodeJS.Timeout;
  last: string | undefined;
  busy: boolean;
}

/**
 * `resources/subscribe` of one server (one client: stdio, or one /mcp session): each box
 * resource subscribed to is looked at every POLL_MS through the subscriber's box API, and
 * `notifications/resources/updated` goes out when it changed (a file written or deleted,
 * console output, a new egress entry). Other URIs are accepted and never change. A server
 * reused across stateless /mcp requests, or closed, drops them all (`closeSubscriptions`).
 */
class Subscriptions {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly server: McpServer) {}

  subscribe(uri: string, api: BoxApi) {
    if (this.watches.has(uri) || !parseBoxUri(uri)) return;
    const w: Watch = { timer: setInterval(() => void this.check(uri, api, w), POLL_MS), last: undefined, busy: false };
    w.timer.unref();
    this.watches.set(uri, w);
    void this.check(uri, api, w);
  }

  unsubscribe(uri: string) {
    clearInterval(this.watches.get(uri)?.timer);
    this.watches.delete(uri);
  }

  clear() {
    for (const uri of [...this.watches.keys()]) this.unsubscribe(uri);
  }

  private async check(uri: string, api: BoxApi, w: Watch) {
    if (w.busy) return;
    w.busy = true;
    try {
      const now = await fingerprint(api, uri).catch((e: Error) => `error:${e.message}`);
      const changed = w.last !== undefined && now !== w.last;
      w.last = now;
      if (changed && this.watches.get(uri) === w && this.server.isConnected()) {
        await this.server.server.sendResourceUpdated({ uri }).catch(() => {});
      }
    } finally {
      w.busy = false;
    }
  }
}

const byServer = new WeakMap<McpServer, Subscriptions>();

export function subscriptionsOf(server: McpServer): Subscriptions {
  let s = byServer.get(server);
  if (!s) byServer.set(server, (s = new Subscriptions(server)));
  return s;
}

export function closeSubscriptions(server: McpServer) {
  byServer.get(server)?.clear();
}
