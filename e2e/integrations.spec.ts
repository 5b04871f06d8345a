import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AppPage } from './pages/app-page.js';
import { expect, login, serviceForFile, test } from './support/fixtures.js';

const svc = serviceForFile();

test('settings → integrations: the MCP snippets name this service, copy exactly, and the HTTP one connects', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await login(page, svc());
  await new AppPage(page).paletteGo('Settings');
  const panel = page.getByTestId('integrations-panel');
  await panel.scrollIntoViewIfNeeded();
  const status = (await (await svc().api('/v1/status')).json()) as { data_dir?: string };
  const origin = new URL(page.url()).origin;

  // Claude Desktop: stdio through `box mcp`, pointed at this service's data dir.
  const desktop = page.getByTestId('mcp-snippet-claude-desktop-text');
  await expect(desktop).toContainText('"command": "box"');
  const desktopConfig = JSON.parse((await desktop.textContent())!) as { mcpServers: { box: { args: string[]; env?: Record<string, string> } } };
  expect(desktopConfig.mcpServers.box.args).toEqual(['mcp']);
  if (status.data_dir) expect(desktopConfig.mcpServers.box.env).toEqual({ BOX_DATA_DIR: status.data_dir });

  // The copy button puts exactly the snippet on the clipboard.
  await page.getByTestId('mcp-snippet-claude-desktop').getByRole('button', { name: 'Copy' }).click();
  await expect(page.getByTestId('mcp-snippet-claude-desktop').getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await desktop.textContent());

  // Cursor and VS Code: this service's /mcp; with a real key in place of the placeholder, a real MCP client connects.
  const cursor = JSON.parse((await page.getByTestId('mcp-snippet-cursor-text').textContent())!) as {
    mcpServers: { box: { url: string; headers: Record<string, string> } };
  };
  expect(cursor.mcpServers.box.url).toBe(`${origin}/mcp`);
  const vscode = JSON.parse((await page.getByTestId('mcp-snippet-vscode-text').textContent())!) as { servers: { box: { type: string; url: string } } };
  expect(vscode.servers.box).toMatchObject({ type: 'http', url: `${origin}/mcp` });
  await expect(page.getByTestId('mcp-snippet-claude-code-text')).toContainText(`claude mcp add --transport http box ${origin}/mcp`);
  await expect(page.getByTestId('mcp-snippet-claude-code-text')).toContainText('-- box mcp');

  const created = (await (await svc().api('/v1/api-keys', { method: 'POST', json: { name: 'cursor', scope: 'organization' } })).json()) as { secret: string };
  const headers = { Authorization: cursor.mcpServers.box.headers.Authorization!.replace('YOUR_API_KEY', created.secret) };
  const client = new Client({ name: 'e2e-integrations', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(cursor.mcpServers.box.url), { requestInit: { headers } }));
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('box_exec');
  await client.close();
});
