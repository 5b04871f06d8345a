import { Readable } from 'node:stream';
import type { BoxRecord, FilesPort } from './ports.js';

/**
 * E2B's SDK starts its MCP gateway with `mcp-gateway --config …` as root after create; Box's
 * images have no such gateway, so this command answers why and what to use instead, and the
 * SDK turns its failure into E2B's `SandboxError: Failed to start MCP gateway: …`.
 */
const MCP_GATEWAY = `#!/bin/sh
echo "Box does not run E2B's MCP gateway. Box serves its own MCP server instead: point your MCP client at /mcp on this Box service (the host of E2B_API_URL) with a Box API key, or run 'box mcp' for stdio." >&2
exit 1
`;

/** Puts the `mcp-gateway` command that answers what Box offers instead into a new sandbox. */
export function installMcpNotice(files: FilesPort, box: BoxRecord): Promise<unknown> {
  return files.write(box, '/usr/local/bin/mcp-gateway', { mode: 0o755, createParents: true }, Readable.from([MCP_GATEWAY]));
}
