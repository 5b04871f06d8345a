import { parse, type Command } from '../args.js';
import { CliError } from '../errors.js';
import { pinnedFetch } from '../../sdk/typescript/src/tls.js';

/**
 * `box mcp`: Box's MCP server on stdin/stdout, for desktop agent hosts (Claude Desktop,
 * Cursor, VS Code, Claude Code). It finds the service like every other command (BOX_URL,
 * BOX_API_KEY, a context: BOX_CONTEXT or `box context use`, the endpoint file of a running
 * service) and calls its HTTP API; a context's pinned certificate is enforced on every call. The server
 * (`#mcp-stdio`, package.json "imports": src-server/areas/mcp/server.ts, which imports only the contract of the service) is loaded lazily.
 */
export const mcp: Command = {
  usage: 'box mcp',
  summary: 'Serve Box as an MCP server over stdio (for Claude Desktop, Cursor, VS Code, Claude Code); logs go to stderr',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    const { apiKey, url, keySource, urlSource, tls, context } = ctx.config;
    if (!apiKey) throw new CliError(`no API key: set BOX_API_KEY, or start the service so that it writes ${keySource}`, 3);
    const { serveStdio } = await import('#mcp-stdio');
    process.stderr.write(`box mcp: serving MCP on stdio for the service at ${url} (from ${urlSource})\n`);
    const hint = context ? `run \`npx box context rm ${context}\` and \`npx box context add ${context} ${url}\` to pin the new certificate` : undefined;
    await serveStdio(url, apiKey, tls && url.startsWith('https:') ? pinnedFetch(tls, hint) : undefined);
  },
};
