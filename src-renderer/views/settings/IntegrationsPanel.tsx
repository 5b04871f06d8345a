import { useQuery } from '@tanstack/react-query';
import type { ServiceStatus } from '../../../src-server/contract/identity.js';
import { api } from '../../api/client.js';
import { CopyBlock } from '../../ui/CopyBlock.js';

/** What the snippets need: where the service answers and where its data (endpoint file, key file) is. */
function mcpSnippets(origin: string, dataDir: string | undefined) {
  const url = `${origin}/mcp`;
  const env = dataDir ? { BOX_DATA_DIR: dataDir } : undefined;
  const stdio = { command: 'box', args: ['mcp'], ...(env ? { env } : {}) };
  const header = { Authorization: 'Bearer YOUR_API_KEY' };
  return [
    {
      id: 'claude-desktop',
      title: 'Claude Desktop',
      where: 'claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop',
      text: JSON.stringify({ mcpServers: { box: stdio } }, null, 2),
    },
    {
      id: 'cursor',
      title: 'Cursor',
      where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
      text: JSON.stringify({ mcpServers: { box: { url, headers: header } } }, null, 2),
    },
    {
      id: 'vscode',
      title: 'VS Code',
      where: '.vscode/mcp.json in your workspace (or "MCP: Add Server" in the command palette)',
      text: JSON.stringify({ servers: { box: { type: 'http', url, headers: header } } }, null, 2),
    },
    {
      id: 'claude-code',
      title: 'Claude Code',
      where: 'in a terminal (stdio through the box CLI, or HTTP with a key)',
      text: [
        `claude mcp add box ${dataDir ? `--env BOX_DATA_DIR=${dataDir} ` : ''}-- box mcp`,
        `claude mcp add --transport http box ${url} --header "Authorization: Bearer YOUR_API_KEY"`,
      ].join('\n'),
    },
  ];
}

/** Settings → Integrations: how to give an agent host (Claude, Cursor, VS Code) Box's MCP tools. */
export function IntegrationsPanel() {
  const status = useQuery({ queryKey: ['status'], queryFn: () => api<ServiceStatus>('/v1/status') });
  const snippets = mcpSnippets(window.location.origin, status.data?.data_dir);
  return (
    <section id="integrations" className="panel p-4" data-testid="integrations-panel">
      <h2 className="mb-1 font-semibold">Integrations (MCP)</h2>
      <p className="mb-3 text-xs text-ink-400">
        Agent hosts reach your boxes through Box&apos;s MCP server: over stdio with <code>box mcp</code> (the CLI finds this service and its key by itself), or
        over HTTP at <code>{window.location.origin}/mcp</code> with an API key (create one under API keys) in place of YOUR_API_KEY. Tools: box_list,
        box_create, box_exec, box_run_code, box_write_file, box_read_file, box_list_files, box_fork, box_sleep, box_terminate, box_egress_log.
      </p>
      <div className="space-y-3">
        {snippets.map((s) => (
          <div key={s.id} data-testid={`mcp-snippet-${s.id}`}>
            <div className="mb-1 text-xs text-ink-300">
              <span className="font-semibold text-ink-100">{s.title}</span> · {s.where}
            </div>
            <CopyBlock text={s.text} testId={`mcp-snippet-${s.id}-text`} />
          </div>
        ))}
      </div>
    </section>
  );
}
