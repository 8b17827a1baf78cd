// MCP servers in the window, against the real @modelcontextprotocol/server-everything (installed
// by `make test` under backend/mcp/testdata/npm): Settings shows a ready stdio server, a ready
// streamable-HTTP server and a failed one (a command that does not exist); the scripted model
// calls mcp__everything__echo and mcp__web__echo, each approved in the window; the result rows
// hold the server's reply and the next model request carries it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chatRequests, freePort, newSession, ROOT, runFinished, sendMessage, shot, startAll, until } from '../harness.mjs';

const EVERYTHING = join(ROOT, 'backend', 'mcp', 'testdata', 'npm', 'node_modules', '.bin', 'mcp-server-everything');
let env, web, webLogs = '';

before(async () => {
  assert.ok(existsSync(EVERYTHING), `${EVERYTHING} is missing: run make .stamps/npm-mcp (cd backend/mcp/testdata/npm && npm ci)`);
  // The same server over streamable HTTP, on a free port (server-everything reads PORT).
  const port = await freePort();
  web = spawn(EVERYTHING, ['streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  web.stdout.on('data', (d) => (webLogs += d));
  web.stderr.on('data', (d) => (webLogs += d));
  const url = `http://127.0.0.1:${port}/mcp`;
  // Ready when it answers HTTP at all (a GET without a session is refused, but answered).
  await until(`server-everything over HTTP at ${url}`, async () => {
    if (web.exitCode !== null) throw new Error(`it exited: ${webLogs}`);
    return (await fetch(url)).status > 0;
  });
  env = await startAll({
    configured: true,
    seed(home) {
      mkdirSync(join(home.config, 'loopdesk'), { recursive: true });
      writeFileSync(
        join(home.config, 'loopdesk', 'mcp.json'),
        JSON.stringify({
          mcpServers: {
            everything: { command: EVERYTHING },
            web: { type: 'http', url },
            broken: { command: 'loopdesk-no-such-command-e2e' },
          },
        }),
      );
    },
  });
});

after(async () => {
  await env?.stop();
  if (web && web.exitCode === null) {
    const gone = new Promise((r) => web.once('exit', r));
    web.kill('SIGTERM');
    await gone;
  }
});

const server = (page, name) => page.getByRole('listitem', { name: `MCP server ${name}` });

async function openSettings(page) {
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('region', { name: 'MCP servers' }).waitFor();
}

test('Settings shows a ready and a failed MCP server, with tools, reason and log', async () => {
  const { page } = env.browser;
  await openSettings(page);
  const ok = server(page, 'everything');
  await ok.getByRole('status').filter({ hasText: /^Ready \(\d+ tools\)$/ }).waitFor({ timeout: 20000 });
  await server(page, 'web').getByRole('status').filter({ hasText: /^Ready \(\d+ tools\)$/ }).waitFor({ timeout: 20000 });
  const bad = server(page, 'broken');
  await bad.getByRole('status').filter({ hasText: /^Failed: / }).waitFor({ timeout: 20000 });
  assert.match(await bad.getByRole('status').textContent(), /loopdesk-no-such-command-e2e/);
  await page.getByRole('region', { name: 'MCP servers' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await shot(page, 'ui-mcp-settings');
  // The tools as the model sees them.
  await ok.getByText(/tools, as the model sees them/).click();
  await ok.getByRole('list', { name: 'Tools of everything' }).getByText('mcp__everything__echo', { exact: true }).waitFor();

  // The log opens in a dialog, as text.
  await ok.getByRole('button', { name: 'Log of everything' }).click();
  const dialog = page.getByRole('dialog', { name: 'Log of everything' });
  await dialog.getByLabel('Server log').waitFor();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  assert.deepEqual(env.browser.consoleErrors, []);
});

for (const [srv, tool] of [
  ['everything', 'mcp__everything__echo'],
  ['web', 'mcp__web__echo'],
]) {
  test(`the model calls ${tool}; approved in the window; the reply reaches the model`, async () => {
    const { page } = env.browser;
    const { fake } = env;
    // A session of its own (the first message of a window with none open makes one).
    if ((await page.locator('main[data-session-id]').count()) > 0) await newSession(page);
    const message = `hello from e2e over ${srv}`;
    await fake.enqueue(
      { kind: 'text', text: '', calls: [{ id: `call_${srv}`, name: tool, arguments: JSON.stringify({ message }) }] },
      { kind: 'text', text: `The ${srv} server echoed it.` },
    );
    const before = (await chatRequests(fake)).length;
    await sendMessage(page, `echo through ${srv}`);
    const card = page.getByRole('region', { name: `Tool call ${tool}` });
    await card.getByRole('button', { name: 'Approve', exact: true }).waitFor();
    // The card says which server the call goes to.
    assert.equal(await card.locator('.tool-server').textContent(), `MCP server: ${srv}`);
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: `The ${srv} server echoed it.` }).waitFor();
    await runFinished(page);

    // The result row holds the server's reply.
    await card.getByText(`Echo: ${message}`).waitFor();
    const reqs = (await chatRequests(fake)).slice(before);
    assert.equal(reqs.length, 2);
    assert.ok(reqs[0].tools.some((t) => t.function.name === tool), `the first request offers ${tool}`);
    const results = reqs[1].messages.filter((m) => m.role === 'tool');
    assert.equal(results.length, 1);
    assert.equal(results[0].tool_call_id, `call_${srv}`);
    assert.match(String(results[0].content), new RegExp(`Echo: ${message}`));

    // The chunk table marks the rows of the call with the server.
    await page.getByRole('tab', { name: 'Chunks' }).click();
    const table = page.getByRole('table', { name: 'Chunk table' });
    await table.locator('[role=row].kind-tool_result').getByTitle(`MCP server ${srv}`).waitFor();
    await page.getByRole('tab', { name: 'Budget' }).click();
    assert.deepEqual(env.browser.consoleErrors, []);
  });
}
