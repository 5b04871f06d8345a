import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { publishEndpoint } from '../src-server/endpoint-file.js';
import { expect, login, serviceForFile, test } from './support/fixtures.js';
import { E2E_KEY } from './support/service.js';

const svc = serviceForFile();

test('settings → integrations: the MCP snippets work as shown (stdio without box on PATH, HTTP with a key made for the client), list every tool, copy exactly and fit', async ({
  page,
  context,
}) => {
  test.setTimeout(180_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize({ width: 760, height: 900 });
  await login(page, svc());
  await page.goto(`${svc().url}/#/settings/integrations`);
  const panel = page.getByTestId('integrations-panel');
  await panel.waitFor();
  const status = (await (await svc().api('/v1/status')).json()) as { data_dir?: string; cli?: { node: string; script: string } };
  const origin = new URL(page.url()).origin;

  // Claude Desktop: stdio, the CLI started by its path (no `box` on PATH needed), pointed at this service's data dir.
  const desktop = page.getByTestId('mcp-snippet-claude-desktop-text');
  await expect(desktop).not.toContainText('"command": "box"');
  const desktopConfig = JSON.parse((await desktop.textContent())!) as {
    mcpServers: { box: { command: string; args: string[]; env?: Record<string, string> } };
  };
  const stdio = desktopConfig.mcpServers.box;
  expect(status.cli).toBeDefined();
  expect(stdio.command).toBe(status.cli!.node);
  expect(stdio.args).toEqual([status.cli!.script, 'mcp']);
  expect(fs.existsSync(stdio.args[0]!)).toBe(true);
  expect(stdio.env).toEqual({ BOX_DATA_DIR: status.data_dir });

  // The service as `npm start` leaves it: its endpoint file and key file in its data dir.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'box-e2e-home-'));
  const unpublish = publishEndpoint({ url: svc().url, inference_url: svc().inferenceUrl, data_dir: svc().dataDir }, { HOME: home });
  if (!fs.existsSync(path.join(svc().dataDir, 'api-key'))) fs.writeFileSync(path.join(svc().dataDir, 'api-key'), `${E2E_KEY}\n`, { mode: 0o600 });
  // That exact command, run as a host runs it (PATH without any `box`), serves the tools over stdio.
  const stdioClient = new Client({ name: 'e2e-claude-desktop', version: '1' });
  await stdioClient.connect(
    new StdioClientTransport({ command: stdio.command, args: stdio.args, env: { ...stdio.env!, PATH: '/usr/bin:/bin', HOME: home }, stderr: 'pipe' }),
  );
  const stdioTools = (await stdioClient.listTools()).tools.map((t) => t.name).sort();
  await stdioClient.close();
  unpublish();
  expect(stdioTools.length).toBeGreaterThanOrEqual(16);

  // The page lists every tool the MCP server has (read from its registry), not a hand-kept subset.
  await expect(page.getByTestId('mcp-tool')).toHaveCount(stdioTools.length);
  const shown = (await page.getByTestId('mcp-tool').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')!))).sort();
  expect(shown).toEqual(stdioTools);

  // Cursor: "Make a key for Cursor" creates a real key and puts it in the snippet; the snippet as shown connects.
  await expect(page.getByTestId('mcp-snippet-cursor-text')).toContainText('YOUR_API_KEY');
  await page.getByTestId('mcp-make-key-cursor').click();
  await expect(page.getByTestId('mcp-key-made-cursor')).toBeVisible();
  await expect(page.getByTestId('mcp-snippet-cursor-text')).not.toContainText('YOUR_API_KEY');
  const cursor = JSON.parse((await page.getByTestId('mcp-snippet-cursor-text').textContent())!) as {
    mcpServers: { box: { url: string; headers: Record<string, string> } };
  };
  expect(cursor.mcpServers.box.url).toBe(`${origin}/mcp`);
  const keys = (await (await svc().api('/v1/api-keys')).json()) as { data: { name: string }[] };
  expect(keys.data.map((k) => k.name)).toContain('mcp-cursor');
  const http = new Client({ name: 'e2e-cursor', version: '1' });
  await http.connect(new StreamableHTTPClientTransport(new URL(cursor.mcpServers.box.url), { requestInit: { headers: cursor.mcpServers.box.headers } }));
  expect((await http.listTools()).tools.map((t) => t.name).sort()).toEqual(stdioTools);
  await http.close();

  const vscode = JSON.parse((await page.getByTestId('mcp-snippet-vscode-text').textContent())!) as { servers: { box: { type: string; url: string } } };
  expect(vscode.servers.box).toMatchObject({ type: 'http', url: `${origin}/mcp` });
  await expect(page.getByTestId('mcp-snippet-claude-code-text')).toContainText(`claude mcp add --transport http box ${origin}/mcp`);
  await expect(page.getByTestId('mcp-snippet-claude-code-text')).toContainText(`-- ${status.cli!.node} ${status.cli!.script} mcp`);

  // The copy button puts exactly the snippet on the clipboard.
  const block = page.getByTestId('mcp-snippet-claude-desktop');
  await block.getByRole('button', { name: 'Copy' }).click();
  await expect(block.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await desktop.textContent());

  // At 760 px: no Copy button over a snippet's text, and no snippet line clipped (nothing to scroll sideways).
  for (const id of ['claude-desktop', 'cursor', 'vscode', 'claude-code']) {
    const pre = page.getByTestId(`mcp-snippet-${id}-text`);
    const button = page.getByTestId(`mcp-snippet-${id}`).getByRole('button', { name: /^Cop/ });
    const [p, b] = [(await pre.boundingBox())!, (await button.boundingBox())!];
    const overlaps = b.x < p.x + p.width && b.x + b.width > p.x && b.y < p.y + p.height && b.y + b.height > p.y;
    expect(overlaps, `${id}: the Copy button overlaps the snippet`).toBe(false);
    const clip = await pre.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(clip.scroll, `${id}: a snippet line is clipped`).toBeLessThanOrEqual(clip.client);
  }
});
