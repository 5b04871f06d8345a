import type { ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { closeSubscriptions } from './subscriptions.js';

/** Sessions an organization keeps open at once: opening one more ends its least recently used. */
const SESSIONS_PER_ORG = 32;
/** A session without a request for this long, and no GET stream open, ends. */
const IDLE_MS = 30 * 60_000;

interface Session {
  id: string;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  keyId: string;
  orgId: string;
  lastUsed: number;
  streams: number;
}

/** The /mcp sessions (http-service.ts): bounded per organization, ended when idle, all ended on close. */
export class McpSessions {
  private readonly byId = new Map<string, Session>();
  private sweeper: NodeJS.Timeout | undefined;

  add(s: Omit<Session, 'lastUsed' | 'streams'>) {
    const mine = [...this.byId.values()].filter((o) => o.orgId === s.orgId).sort((a, b) => a.lastUsed - b.lastUsed);
    if (mine.length >= SESSIONS_PER_ORG) void this.end(mine[0]!.id);
    this.byId.set(s.id, { ...s, lastUsed: Date.now(), streams: 0 });
    this.sweeper ??= setInterval(() => this.sweep(), 60_000).unref();
  }

  /** The session, when it exists and was opened by this key. */
  get(id: string, keyId: string): Session | undefined {
    const s = this.byId.get(id);
    if (!s || s.keyId !== keyId) return undefined;
    s.lastUsed = Date.now();
    return s;
  }

  streamOpened(s: Session, res: ServerResponse) {
    s.streams++;
    res.once('close', () => {
      s.streams--;
      s.lastUsed = Date.now();
    });
  }

  async end(id: string) {
    const s = this.byId.get(id);
    if (!s) return;
    this.byId.delete(id);
    closeSubscriptions(s.server);
    await s.server.close().catch(() => {});
    if (!this.byId.size) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  async closeAll() {
    await Promise.all([...this.byId.keys()].map((id) => this.end(id)));
  }

  private sweep() {
    const now = Date.now();
    for (const s of this.byId.values()) if (s.streams === 0 && now - s.lastUsed > IDLE_MS) void this.end(s.id);
  }
}
