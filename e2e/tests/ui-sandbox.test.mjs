// The sandbox in the window: in approval mode "sandboxed" a plain shell command runs with no
// card to answer, in the sandbox, and its card and chunk-table row say so; a command asking
// for network shows a card that says it asks for network; in mode "ask" the card of a plain
// command says it will run in the sandbox (screenshot: docs/screenshots/ui-sandbox-card.png).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { docShot, editSettings, newSession, runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let fake, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, browser } = env);
});

after(async () => {
  await env?.stop();
});

const card = (page, id) => page.locator(`section.tool-card[data-call-id="${id}"]`);
const mode = (m) => (page) => page.getByLabel('Default approval mode').selectOption(m);

test('mode sandboxed: a plain command runs unasked in the sandbox; one asking for network asks', async () => {
  const { page } = browser;
  await editSettings(page, mode('sandboxed'));
  await newSession(page);
  // The header says which sandbox the session's commands get.
  await page.getByRole('button', { name: /^Sandbox: / }).filter({ hasText: 'Sandbox: auto' }).waitFor();
  await fake.enqueue(
    { kind: 'text', text: '', calls: [{ id: 'call_plain', name: 'run_shell_command', arguments: JSON.stringify({ command: 'echo built > out.txt && cat out.txt' }) }] },
    { kind: 'text', text: '', calls: [{ id: 'call_net', name: 'run_shell_command', arguments: JSON.stringify({ command: 'curl -sI https://example.org', network: true }) }] },
    { kind: 'text', text: 'Built it; did not fetch.' },
  );
  await sendMessage(page, 'build it, then fetch');

  const plain = card(page, 'call_plain');
  await plain.getByLabel('Sandbox').filter({ hasText: 'Ran in the sandbox' }).waitFor();
  await plain.getByText(/Approved by/).waitFor();
  assert.equal(await plain.getByRole('button', { name: 'Approve', exact: true }).count(), 0);

  const net = card(page, 'call_net');
  await net.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  assert.match(await net.getByLabel('Sandbox').textContent(), /Asks for network/);
  await shot(page, 'ui-sandbox-network-card');
  await net.getByRole('button', { name: 'Deny', exact: true }).click();
  await runFinished(page);

  await page.getByRole('tab', { name: 'Chunks' }).click();
  const row = page.getByRole('table', { name: 'Chunk table' }).getByRole('row').filter({ hasText: 'run_shell_command [sandboxed]' });
  await row.first().waitFor();
  await page.getByRole('tab', { name: 'Budget' }).click();
  assert.deepEqual(browser.consoleErrors, []);
});

test('mode ask: the card says the command will run in the sandbox', async () => {
  const { page } = browser;
  await editSettings(page, mode('ask'));
  await newSession(page);
  await fake.enqueue(
    { kind: 'text', text: 'I will run the tests.', calls: [{ id: 'call_test', name: 'run_shell_command', arguments: JSON.stringify({ command: 'make test' }) }] },
    { kind: 'text', text: 'Done.' },
  );
  await sendMessage(page, 'run the tests');
  const c = card(page, 'call_test');
  await c.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  assert.match(await c.getByLabel('Sandbox').textContent(), /Will run in the sandbox/);
  await docShot(page, 'ui-sandbox-card');
  // The header's editor: mode and network for this folder or this session.
  await page.getByRole('button', { name: /^Sandbox: / }).click();
  await page.getByRole('group', { name: 'Sandbox' }).getByLabel('Allow network').waitFor();
  await shot(page, 'ui-sandbox-editor');
  await c.getByRole('button', { name: 'Approve', exact: true }).click();
  await runFinished(page);
  await c.getByLabel('Sandbox').filter({ hasText: 'Ran in the sandbox' }).waitFor();
  assert.deepEqual(browser.consoleErrors, []);
});
