// What the agent costs and asks, in the window: after two writes the person approved, the
// Budget tab shows the provider's rate limits (scripted on the fake model's reply) with their
// time, Loopdesk's own tokens per request, and the approval report with the rule that would
// have spared both prompts; Accept saves it; the report of every session opens from the list
// and from "/approvals"; reloaded, the window shows the last run's own tokens again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runFinished, sendMessage, shot, startAll, until } from '../harness.mjs';

let fake, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, browser } = env);
});

after(async () => {
  await env?.stop();
});

test('the Budget tab shows provider limits, harness tokens and the approval report', async () => {
  const { page } = browser;
  const write = (id, path) => ({ kind: 'text', calls: [{ id, name: 'write_file', arguments: JSON.stringify({ path, content: 'x\n' }) }] });
  // The first request of a new session carries no history: its usage counts Loopdesk's share.
  await fake.enqueue({ ...write('w1', 'docs/a.md'), usage: { prompt_tokens: 1850, completion_tokens: 20 } }, write('w2', 'docs/b.md'), {
    kind: 'text',
    text: 'Both written.',
    headers: { 'x-ratelimit-remaining-requests': '49', 'x-ratelimit-remaining-tokens': '39000', 'x-ratelimit-reset-tokens': '1.5s' },
  });
  await sendMessage(page, 'write two docs');
  for (const path of ['docs/a.md', 'docs/b.md']) {
    const approve = page.getByRole('region', { name: 'Tool call write_file' }).getByRole('button', { name: 'Approve', exact: true });
    await approve.first().waitFor();
    await approve.first().click();
    await page.getByRole('figure', { name: `Change to ${path}` }).first().waitFor();
  }
  await runFinished(page);
  await page.getByRole('tab', { name: 'Budget' }).click();

  const limits = page.getByRole('region', { name: 'Provider limits' });
  await limits.getByText('39000').waitFor();
  assert.match(await limits.textContent(), /remaining-requests\s*49/);
  // 1,850 less the estimate of "write two docs": counted as the provider counts, not estimated.
  const own = page.getByRole('note', { name: "Loopdesk's own tokens" });
  const measured = /per request: 1\.8k \(as the provider counts\) — parts, estimated: system prompt/;
  await until('the measured figure', async () => measured.test(await own.textContent()));

  const report = page.getByRole('region', { name: 'Approval report' });
  await report.getByText(/You answered 2 prompts/).waitFor();
  const rule = 'allow write_file docs/*.md in this session';
  await report.getByRole('listitem', { name: rule }).waitFor();
  await shot(page, 'ui-costs-budget-tab');
  const accept = report.getByRole('button', { name: `Accept: ${rule}` });
  await accept.click();
  await until('the suggestion saved', async () => (await accept.textContent()) === 'Saved' && (await accept.isDisabled()));

  await page.getByRole('button', { name: 'Approval report' }).click();
  const dialog = page.getByRole('dialog', { name: 'Approvals in every session' });
  await dialog.getByText(/You answered 2 prompts/).waitFor();
  // The rule just saved is not offered again.
  await dialog.getByText(/No rule would have spared you/).waitFor();
  await shot(page, 'ui-costs-approvals-dialog');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });

  // "/approvals" in the message box opens the same view and sends nothing.
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('/approvals');
  await page.getByRole('option', { name: /approvals/ }).waitFor();
  await box.press('Enter');
  await box.press('Enter');
  await dialog.getByText(/You answered 2 prompts/).waitFor();
  assert.equal(await box.inputValue(), '');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });

  // Reopened, the window shows the last run's figure before any run starts.
  await page.reload();
  await page.getByRole('tab', { name: 'Budget' }).click();
  await until('the kept figure', async () => measured.test(await page.getByRole('note', { name: "Loopdesk's own tokens" }).textContent()));
  assert.deepEqual(browser.consoleErrors, []);
});
