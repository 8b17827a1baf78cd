// Budgets in the window: with Max turns set to 2 (and every call allowed),
// a model that keeps calling tools is stopped after its second turn; the
// Turns meter shows the limit reached and the stop reason is shown.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { editSettings, runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let fake, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, browser } = env);
});

after(async () => {
  await env?.stop();
});

test('the Turns meter stops a run at max turns', async () => {
  const { page } = browser;
  await editSettings(page, async (p) => {
    await p.getByRole('combobox', { name: 'Default approval mode' }).selectOption('auto');
    await p.getByRole('spinbutton', { name: 'Max turns' }).fill('2');
  });

  const call = (i, pattern) => ({ kind: 'text', calls: [{ id: `call_${i}`, name: 'find_files', arguments: JSON.stringify({ pattern }) }] });
  await fake.enqueue(call(1, '*.txt'), call(2, '*.md'), call(3, '*.go'), { kind: 'text', text: 'never reached' });
  await sendMessage(page, 'keep looking');
  await runFinished(page);

  await page.getByRole('alert').filter({ hasText: 'maximum number of turns' }).waitFor();
  const turns = page.getByRole('meter', { name: 'Turns' });
  assert.equal(await turns.getAttribute('aria-valuetext'), '2 of 2');
  assert.equal(await turns.getAttribute('data-level'), 'over');
  await page.getByLabel('Stop reason').filter({ hasText: 'maximum number of turns' }).waitFor();
  // Every meter the issue names is there.
  for (const name of ['Turns', 'Tokens', 'Cost', 'Time', 'Context']) assert.equal(await page.getByRole('meter', { name, exact: true }).count(), 1, name);
  await shot(page, 'ui-08-max-turns');
  assert.equal(await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'never reached' }).count(), 0);

  // The theme follows the system until Settings overrides it.
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme ?? ''), '');
  await editSettings(page, (p) => p.getByRole('combobox', { name: 'Theme' }).selectOption('dark'));
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  await shot(page, 'ui-12-dark');
  assert.deepEqual(browser.consoleErrors, []);
});
