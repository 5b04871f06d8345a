import { parse, type Command } from '../args.js';
import { CliError } from '../errors.js';

/**
 * `box mcp`: Box's MCP server on stdin/stdout, for desktop agent hosts (Claude Desktop,
 * Cursor, VS Code, Claude Code). It finds the service like every other command (BOX_URL,
 * BOX_API_KEY, the endpoint file of a running service) and calls its HTTP API. The server
 * (src-server/mcp/server.ts, which imports only the contract of the service) is loaded lazily.
 */
export const mcp: Command = {
  usage: 'box mcp',
  summary: 'Serve Box as an MCP server over stdio (for Claude Desktop, Cursor, VS Code, Claude Code); logs go to stderr',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    const { apiKey, url, keySource, urlSource } = ctx.config;
    if (!apiKey) throw new CliError(`no API key: set BOX_API_KEY, or start the service so that it writes ${keySource}`, 3);
    const { serveStdio } = await import('../../src-server/mcp/server.js');
    process.stderr.write(`box mcp: serving MCP on stdio for the service at ${url} (from ${urlSource})\n`);
    await serveStdio(url, apiKey);
  },
};
