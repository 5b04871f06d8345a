import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { ServiceStatus } from '@box/contract/identity';
import { api, call } from '../../api/client.js';
import { useCreateApiKey } from '../../api/hooks/identity.js';
import { Button } from '../../ui/Button.js';
import { CopyBlock } from '../../ui/CopyBlock.js';
import { ErrorNotice, Loading } from '../../ui/states.js';

const PLACEHOLDER = 'YOUR_API_KEY';

interface Snippet {
  id: string;
  title: string;
  where: string;
  text: string;
  /** It carries an API key (HTTP transport): a key can be made for it. */
  http: boolean;
}

/**
 * What the snippets need: where the service answers, where its data (endpoint file, key
 * file) is, and how to start this install's CLI. The stdio snippets start the CLI by its
 * path with the service's Node.js, so they work without `box` on PATH; `keys` holds a key
 * made for a client, put in place of the placeholder.
 */
function mcpSnippets(origin: string, status: ServiceStatus | undefined, keys: Record<string, string>): Snippet[] {
  const url = `${origin}/mcp`;
  const dataDir = status?.data_dir;
  const env = dataDir ? { BOX_DATA_DIR: dataDir } : undefined;
  const stdio = status?.cli
    ? { command: status.cli.node, args: [status.cli.script, 'mcp'], ...(env ? { env } : {}) }
    : { command: 'box', args: ['mcp'], ...(env ? { env } : {}) };
  const header = (id: string) => ({ Authorization: `Bearer ${keys[id] ?? PLACEHOLDER}` });
  const stdioLine = status?.cli ? `${quote(status.cli.node)} ${quote(status.cli.script)} mcp` : 'box mcp';
  return [
    {
      id: 'claude-desktop',
      title: 'Claude Desktop',
      where: 'claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop',
      text: JSON.stringify({ mcpServers: { box: stdio } }, null, 2),
      http: false,
    },
    {
      id: 'cursor',
      title: 'Cursor',
      where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
      text: JSON.stringify({ mcpServers: { box: { url, headers: header('cursor') } } }, null, 2),
      http: true,
    },
    {
      id: 'vscode',
      title: 'VS Code',
      where: '.vscode/mcp.json in your workspace (or "MCP: Add Server" in the command palette)',
      text: JSON.stringify({ servers: { box: { type: 'http', url, headers: header('vscode') } } }, null, 2),
      http: true,
    },
    {
      id: 'claude-code',
      title: 'Claude Code',
      where: 'in a terminal: the first line over stdio (no key needed), or the second over HTTP with a key',
      text: [
        `claude mcp add box ${dataDir ? `--env BOX_DATA_DIR=${quote(dataDir)} ` : ''}-- ${stdioLine}`,
        `claude mcp add --transport http box ${url} --header "Authorization: Bearer ${keys['claude-code'] ?? PLACEHOLDER}"`,
      ].join('\n'),
      http: true,
    },
  ];
}

/** A shell word as typed (quoted only when it needs it). */
const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** Settings → Integrations: how to give an agent host (Claude, Cursor, VS Code) Box's MCP tools. */
export function IntegrationsPanel() {
  const status = useQuery({ queryKey: ['status'], queryFn: () => api<ServiceStatus>('/v1/status') });
  const tools = useQuery({ queryKey: ['mcp-tools'], queryFn: () => call('GET /v1/mcp/tools'), staleTime: Infinity });
  const [keys, setKeys] = useState<Record<string, string>>({});
  const create = useCreateApiKey();
  const snippets = mcpSnippets(window.location.origin, status.data, keys);
  const cli = status.data?.cli;
  return (
    <section id="integrations" className="panel p-4" data-testid="integrations-panel">
      <h2 className="mb-1 font-semibold">Integrations (MCP)</h2>
      <p className="mb-2 text-xs text-ink-300">
        Agent hosts reach your boxes through Box&apos;s MCP server, over stdio or over HTTP at <code>{window.location.origin}/mcp</code>.
      </p>
      <ul className="mb-3 list-disc space-y-1 pl-5 text-xs text-ink-300" data-testid="mcp-how">
        <li>
          <strong className="text-ink-100">stdio</strong>: the host starts this install&apos;s CLI,{' '}
          {cli ? (
            <>
              by its path (<code data-testid="mcp-cli-script">{cli.script}</code>), so <code>box</code> need not be on your PATH
            </>
          ) : (
            <>
              <code>box mcp</code>: run <code>npm link</code> once in the Box checkout to put <code>box</code> on your PATH
            </>
          )}
          . The CLI finds this service and its key through <code>BOX_DATA_DIR</code>; no key to paste.
          {cli && (
            <>
              {' '}
              To type <code>box mcp</code> instead, run <code>npm link</code> once in the Box checkout.
            </>
          )}
        </li>
        <li>
          <strong className="text-ink-100">HTTP</strong>: the host sends an API key. <em>Make a key for this client</em> creates one and puts it in the snippet
          (it is shown only here, once: copy it now).
        </li>
      </ul>
      <ErrorNotice error={create.error} />
      <div className="space-y-3">
        {snippets.map((s) => (
          <div key={s.id} data-testid={`mcp-snippet-${s.id}`}>
            <div className="mb-1 flex flex-wrap items-center justify-between gap-2 text-xs text-ink-300">
              <span className="min-w-0">
                <span className="font-semibold text-ink-100">{s.title}</span> · {s.where}
              </span>
              {s.http &&
                (keys[s.id] ? (
                  <span className="text-emerald-300" data-testid={`mcp-key-made-${s.id}`}>
                    key &ldquo;mcp-{s.id}&rdquo; made and filled in
                  </span>
                ) : (
                  <Button
                    small
                    needsService
                    busy={create.isPending && create.variables?.name === `mcp-${s.id}`}
                    data-testid={`mcp-make-key-${s.id}`}
                    onClick={() =>
                      create.mutate({ name: `mcp-${s.id}`, scope: 'organization' }, { onSuccess: (k) => setKeys((cur) => ({ ...cur, [s.id]: k.secret })) })
                    }
                  >
                    Make a key for {s.title}
                  </Button>
                ))}
            </div>
            <CopyBlock text={s.text} testId={`mcp-snippet-${s.id}-text`} label={s.http ? 'HTTP' : 'stdio'} />
          </div>
        ))}
      </div>
      <h3 className="mt-4 mb-1 text-sm font-semibold">Tools ({tools.data?.data.length ?? '…'})</h3>
      {tools.isPending ? (
        <Loading label="Reading the MCP server's tools" />
      ) : tools.error ? (
        <ErrorNotice error={tools.error} />
      ) : (
        <dl className="grid gap-x-4 gap-y-1 text-xs sm:grid-cols-[max-content_1fr]" data-testid="mcp-tools">
          {tools.data.data.map((t) => (
            <div key={t.name} className="contents" data-testid="mcp-tool" data-name={t.name}>
              <dt className="font-mono text-ink-100">{t.name}</dt>
              <dd className="text-ink-300">{t.title ?? t.description.split('. ')[0]}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
