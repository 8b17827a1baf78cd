// The session's own approval mode on its mode line, provider retries said while they happen,
// a failed call's row in words, sending that scrolls back to the bottom, rules in words, fork
// titles and a provider key typed in Settings — in the window against the real backend.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newSession, runFinished, sendMessage, shot, startAll, until } from '../harness.mjs';

let env;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

const assistant = (page, text) => page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: text });
const write = (id, path, content) => ({ kind: 'text', text: '', calls: [{ id, name: 'write_file', arguments: JSON.stringify({ path, content }) }] });

test('one session reviews each hunk from its mode line; another keeps the default', async () => {
  const { page } = env.browser;
  await newSession(page);
  const bar = page.getByRole('group', { name: 'Session mode and totals' });
  const approval = bar.getByRole('combobox', { name: 'Approval mode' });
  assert.equal(await approval.inputValue(), '', 'a new session follows the default');
  await approval.selectOption('review');
  await until('the mode to be stored', async () => (await approval.inputValue()) === 'review');
  await shot(page, 'ui-session-mode-line-review');

  await env.fake.enqueue(write('call_rev', 'a.txt', 'one\ntwo\n'), { kind: 'text', text: 'Left it.' });
  await sendMessage(page, 'write a.txt');
  const card = page.locator('[data-call-id="call_rev"]');
  await card.getByRole('group', { name: 'Review hunks' }).waitFor();
  await shot(page, 'ui-session-mode-review-card');
  await card.getByRole('button', { name: 'Deny', exact: true }).click();
  await assistant(page, 'Left it.').waitFor();
  await runFinished(page);

  // Another session: the default (ask) — the call asks, without hunks to review.
  await newSession(page);
  assert.equal(await bar.getByRole('combobox', { name: 'Approval mode' }).inputValue(), '');
  await env.fake.enqueue(write('call_ask', 'b.txt', 'three\n'), { kind: 'text', text: 'Not written.' });
  await sendMessage(page, 'write b.txt');
  const other = page.locator('[data-call-id="call_ask"]');
  await other.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  assert.equal(await other.getByRole('group', { name: 'Review hunks' }).count(), 0);
  await other.getByRole('button', { name: 'Deny', exact: true }).click();
  await assistant(page, 'Not written.').waitFor();
  await runFinished(page);
  assert.deepEqual(env.browser.consoleErrors, []);
});

test('retries of the provider are said while they happen; a failed call says what happened', async () => {
  const { page } = env.browser;
  await newSession(page);
  await env.fake.enqueue({ kind: 'http_error', status: 500, retry_after: '2' }, { kind: 'text', text: 'Back again.' });
  await sendMessage(page, 'hello?');
  const status = page.getByRole('status', { name: 'Run status' });
  // The window allows 3 retries of one call (backend/desktop).
  await status.getByText('Retrying (1 of 3) after HTTP 500…').waitFor();
  await shot(page, 'ui-session-retrying');
  await assistant(page, 'Back again.').waitFor();
  await runFinished(page);

  const failure = { kind: 'http_error', status: 500, retry_after: '0' };
  await env.fake.enqueue(failure, failure, failure, failure);
  await sendMessage(page, 'and now?');
  await runFinished(page);
  const row = page.getByLabel('Model call without an answer');
  await row.waitFor();
  assert.match(await row.textContent(), /^The model call failed: the provider answered with an error or the connection broke, and no reply arrived\. The provider did not report the tokens it used\.$/);
  await shot(page, 'ui-session-failed-call');
});

test('sending scrolls back to the bottom after a small scroll up', async () => {
  const { page } = env.browser;
  await newSession(page);
  const long = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of a long answer.`).join('\n\n');
  await env.fake.enqueue({ kind: 'text', text: long });
  await sendMessage(page, 'tell me a lot');
  await assistant(page, 'Line 60').waitFor();
  await runFinished(page);
  const conv = page.getByRole('region', { name: 'Conversation' });
  const gap = () => conv.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
  await conv.evaluate((el) => {
    el.scrollTop = el.scrollTop - 200;
    el.dispatchEvent(new Event('scroll'));
  });
  assert.ok((await gap()) > 100, 'scrolled up');
  await env.fake.enqueue({ kind: 'text', text: 'Short answer.' });
  await sendMessage(page, 'and briefly?');
  await assistant(page, 'Short answer.').waitFor();
  await runFinished(page);
  await until('the conversation to be at its bottom', async () => (await gap()) < 40);
});

test('rules read as rules, one row for a rule and its fork; forks say what they are', async () => {
  const { page } = env.browser;
  await newSession(page);
  await env.fake.enqueue({ kind: 'text', text: 'Noted.' });
  await sendMessage(page, 'Add a multiply function');
  await assistant(page, 'Noted.').waitFor();
  await runFinished(page);

  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('region', { name: 'Settings' });
  await settings.waitFor();
  const form = page.getByRole('form', { name: 'New rule' });
  await form.getByLabel('New rule tool').fill('write_file');
  await form.getByLabel('New rule pattern').fill('*.md');
  await form.getByRole('button', { name: 'Add rule' }).click();
  await page.getByRole('button', { name: 'Close', exact: true }).click();

  await page.getByRole('tab', { name: 'Chunks' }).click();
  await page.getByRole('button', { name: 'Fork from here' }).first().click();
  await page.getByRole('heading', { name: 'Add a multiply function (fork at #1)' }).waitFor();
  await shot(page, 'ui-session-fork-title');

  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  const table = page.getByRole('table', { name: 'Saved rules' });
  const rows = table.locator('tbody tr').filter({ hasText: '*.md' });
  await until('one row for the rule', async () => (await rows.count()) === 1);
  await rows.getByText('session “Add a multiply function” and 1 of its forks').waitFor();
  await table.scrollIntoViewIfNeeded();
  await shot(page, 'ui-session-rules-table');
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  assert.deepEqual(env.browser.consoleErrors, []);
});

test('a provider key typed in Settings is kept, never shown again', async () => {
  const { page } = env.browser;
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  const providers = page.getByRole('region', { name: 'Providers' });
  await providers.scrollIntoViewIfNeeded();
  await providers.getByRole('button', { name: 'Add provider' }).click();
  const form = page.getByRole('form', { name: 'New provider' });
  await form.getByRole('textbox', { name: 'Name' }).fill('second');
  await form.getByRole('textbox', { name: 'Provider base URL' }).fill(env.fake.url);
  await form.getByLabel('API key').fill('sk-e2e-typed-secret');
  await shot(page, 'ui-session-provider-key-form');
  await form.getByRole('button', { name: 'Add' }).click();
  await providers.getByRole('button', { name: 'Save providers' }).click();
  await providers.getByText('Providers saved.').waitFor();
  const item = providers.getByRole('listitem', { name: 'Provider second' });
  await item.getByText(/key file .*keys\/second\.key/).waitFor();
  assert.ok(!(await page.content()).includes('sk-e2e-typed-secret'), 'the key is not on the page');
  await shot(page, 'ui-session-provider-key-saved');
  await page.getByRole('button', { name: 'Close', exact: true }).click();
});
