// Sessions in the window: fork from a middle row of the chunk table and
// continue the fork; full-text search finding a tool result and opening the
// session at that row; a session surviving a restart of the app.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chatRequests, runFinished, sendMessage, shot, newSession, startAll } from '../harness.mjs';

let fake, app, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, app, browser } = env);
});

after(async () => {
  await env?.stop();
});

const assistant = (page, text) => page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: text });
const nav = (page) => page.getByRole('navigation', { name: 'Sessions' });

test('a fork from a middle row is continued with a new message', async () => {
  const { page } = browser;
  for (const w of ['alpha', 'bravo', 'charlie']) {
    await sendMessage(page, w);
    await assistant(page, `You said: ${w}`).waitFor();
    await runFinished(page);
  }
  await page.getByRole('tab', { name: 'Chunks' }).click();
  const table = page.getByRole('table', { name: 'Chunk table' });
  const middle = table.getByRole('row').filter({ hasText: 'You said: bravo' });
  await middle.click();
  await page.getByRole('region', { name: /^Row \d+$/ }).getByLabel('Payload').getByText('You said: bravo').waitFor();
  await shot(page, 'ui-04-chunk-table');
  await middle.getByRole('button', { name: 'Fork from here' }).click();

  // The fork opens, under its parent, with rows up to the fork point only.
  await page.getByRole('button', { name: /forked from alpha at #\d+/ }).waitFor();
  await nav(page).getByRole('list', { name: /^Forks of alpha/ }).waitFor();
  await table.getByRole('row').filter({ hasText: 'You said: bravo' }).waitFor();
  assert.equal(await table.getByRole('row').filter({ hasText: 'charlie' }).count(), 0);
  assert.equal(await assistant(page, 'You said: charlie').count(), 0);

  await sendMessage(page, 'delta after the fork');
  await assistant(page, 'You said: delta after the fork').waitFor();
  await runFinished(page);
  const last = (await chatRequests(fake)).at(-1);
  const said = last.messages.filter((m) => m.role === 'user').map((m) => m.content);
  assert.deepEqual(said, ['alpha', 'bravo', 'delta after the fork']);
  await shot(page, 'ui-05-fork-continued');
  await page.getByRole('tab', { name: 'Budget' }).click();
  assert.deepEqual(browser.consoleErrors, []);
});

test('search finds a tool result and opens the session at that row', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue(
    { kind: 'text', calls: [{ id: 'call_z', name: 'run_shell_command', arguments: JSON.stringify({ command: 'echo zebracorn-$((40+2))' }) }] },
    { kind: 'text', text: 'Printed it.' },
  );
  await sendMessage(page, 'print the magic word');
  await page.getByRole('region', { name: 'Tool call run_shell_command' }).getByRole('button', { name: 'Approve', exact: true }).click();
  await assistant(page, 'Printed it.').waitFor();
  await runFinished(page);

  // Go elsewhere, then search: only the tool's output holds "zebracorn-42".
  await nav(page).getByRole('button', { name: /^alpha/ }).first().click();
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('zebracorn-42');
  const results = page.getByLabel('Search results');
  const hit = results.getByRole('button').filter({ hasText: 'tool_result' });
  await hit.waitFor();
  assert.match(await hit.locator('mark').first().textContent(), /zebracorn/);
  await shot(page, 'ui-06-search');
  const seq = Number((await hit.textContent()).match(/#(\d+) tool_result/)[1]);
  await hit.click();

  await page.getByRole('heading', { name: 'print the magic word' }).waitFor();
  const row = page.locator(`.conversation [data-seq="${seq}"]`);
  await row.waitFor();
  assert.match(await row.getAttribute('class'), /hit-target/);
  assert.match(await row.textContent(), /zebracorn-42/);
  assert.ok(await row.isVisible());
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('');
  assert.deepEqual(browser.consoleErrors, []);
});

test('a session survives an app restart and can be continued', async () => {
  const { page } = browser;
  await newSession(page);
  await sendMessage(page, 'remember the lighthouse');
  await assistant(page, 'You said: remember the lighthouse').waitFor();
  await runFinished(page);

  app = await env.restart();
  await page.goto(app.url);
  await nav(page).getByRole('button', { name: /remember the lighthouse/ }).click();
  await assistant(page, 'You said: remember the lighthouse').waitFor();
  await page.getByRole('article', { name: 'You' }).filter({ hasText: 'remember the lighthouse' }).waitFor();
  // The forks made before the restart are still under their parent.
  await nav(page).getByRole('list', { name: /^Forks of alpha/ }).waitFor();

  await sendMessage(page, 'and the harbour');
  await assistant(page, 'You said: and the harbour').waitFor();
  const last = (await chatRequests(fake)).at(-1);
  assert.deepEqual(
    last.messages.filter((m) => m.role !== 'system').map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
  await shot(page, 'ui-07-after-restart');
  assert.deepEqual(browser.consoleErrors, []);
});
