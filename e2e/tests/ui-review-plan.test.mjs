// Review, restore and the pinned plan as a new user meets them: under approval mode review the
// card has one Approve (its button and y) and writes only the hunks kept; the finished card diffs
// against the file as it was; a restore that removes a created file takes its hunk off the
// review list; a run's first update_plan pins the plan while the run still goes, also in a new
// session opened after a longer one; a denied shell command says nothing about a sandbox.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { docShot, editSettings, newSession, runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let env, folder;

before(async () => {
  env = await startAll({ configured: true });
  await editSettings(env.browser.page, (page) => page.getByLabel('Default approval mode').selectOption('auto'));
});

after(async () => {
  await env?.stop();
});

const lines = (n, change = {}) => Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';
const read = (p) => readFileSync(join(folder, p), 'utf8');
const assistant = (page, text) => page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: text });

async function call(page, id, name, args, reply, prompt = `do ${id}`) {
  await env.fake.enqueue({ kind: 'text', text: '', calls: [{ id, name, arguments: JSON.stringify(args) }] }, { kind: 'text', text: reply });
  await sendMessage(page, prompt);
  await assistant(page, reply).waitFor();
  await runFinished(page);
}

test('review: y approves with the hunk choices; only the kept hunk is written; the card says it was reviewed', async () => {
  const { page } = env.browser;
  await call(page, 'call_setup', 'run_shell_command', { command: "pwd && seq 1 30 | sed 's/^/line /' > a.txt" }, 'Made a.txt.');
  folder = (await page.locator('[data-call-id="call_setup"] .tool-result pre').textContent()).match(/^(\/\S+)$/m)?.[1];
  assert.equal(read('a.txt'), lines(30));

  await editSettings(page, (p) => p.getByLabel('Default approval mode').selectOption('review'));
  const proposed = lines(30, { 1: 'LINE ONE', 30: 'LINE THIRTY' });
  await env.fake.enqueue(
    { kind: 'text', text: '', calls: [{ id: 'call_review', name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: proposed }) }] },
    { kind: 'text', text: 'Wrote what you kept.' },
  );
  await sendMessage(page, 'rewrite the ends');
  const card = page.locator('[data-call-id="call_review"]');
  const review = card.getByRole('group', { name: 'Review hunks' });
  await review.getByRole('radio', { name: 'Drop hunk 1' }).check();
  // One approve button, saying what it writes.
  await card.getByRole('button', { name: 'Approve 1 of 2 hunks' }).waitFor();
  assert.equal(await card.getByRole('button', { name: /^Approve/ }).count(), 1);
  await card.scrollIntoViewIfNeeded();
  await docShot(page, 'ui-review-one-approve');
  await card.getByRole('button', { name: 'Deny', exact: true }).focus();
  await page.keyboard.press('y');
  await assistant(page, 'Wrote what you kept.').waitFor();
  await runFinished(page);
  assert.equal(read('a.txt'), lines(30, { 30: 'LINE THIRTY' }), 'the dropped hunk is not written');

  await card.getByText('Reviewed before it ran: hunk 1 dropped, hunk 2 kept').waitFor();
  assert.equal(await card.getByText(/Arguments edited/).count(), 0);
  // The finished card diffs against a.txt as it was before the call: one line changed, not 30 added.
  const diff = card.getByRole('figure', { name: 'Change to a.txt' });
  await diff.getByText('+ LINE THIRTY').waitFor();
  await diff.getByText('- line 30').waitFor();
  assert.equal(await diff.getByText('+ line 2', { exact: true }).count(), 0);
  await diff.getByText('+ LINE THIRTY').scrollIntoViewIfNeeded();
  await shot(page, 'ui-review-done-diff');
  await card.getByText('Reviewed before it ran').scrollIntoViewIfNeeded();
  await shot(page, 'ui-review-done-card');
  await editSettings(page, (p) => p.getByLabel('Default approval mode').selectOption('auto'));
});

test('a restore that removes a created file takes its hunk off the review list', async () => {
  const { page } = env.browser;
  await call(page, 'call_new', 'write_file', { path: 'new.txt', content: 'one\ntwo\n' }, 'Created new.txt.');
  const changes = page.locator('[data-call-id="call_new"]').getByRole('region', { name: /^Files changed by row/ });
  await changes.getByRole('button', { name: 'Restore files to before this row' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore files' });
  await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(existsSync(join(folder, 'new.txt')), false);

  await page.getByRole('tab', { name: 'Changes' }).click();
  const panel = page.getByRole('region', { name: 'Changes' });
  // Left: a.txt's two hunks (the setup's creation and the reviewed write); new.txt's is undone.
  await panel.getByText('2 unreviewed hunks').waitFor();
  assert.equal(await panel.getByRole('listitem', { name: /of new\.txt/ }).count(), 0);
  await shot(page, 'ui-review-changes-after-restore');
  await page.getByRole('tab', { name: 'Changes' }).click();
});

test('the first update_plan of a run pins the plan while the run goes, in a new session after a longer one', async () => {
  const { page } = env.browser;
  await editSettings(page, (p) => p.getByLabel('Default approval mode').selectOption('ask'));
  await newSession(page);
  const plan = { explanation: 'small steps', plan: [{ step: 'read the code', status: 'in_progress' }, { step: 'write the test', status: 'pending' }] };
  await env.fake.enqueue(
    { kind: 'text', text: '', calls: [{ id: 'call_plan', name: 'update_plan', arguments: JSON.stringify(plan) }] },
    { kind: 'text', text: '', calls: [{ id: 'call_rm', name: 'run_shell_command', arguments: JSON.stringify({ command: 'rm -rf build' }) }] },
    { kind: 'text', text: 'Stopped there.' },
  );
  await sendMessage(page, 'plan it');
  // The run waits on the shell command: the plan is pinned already.
  const pending = page.locator('[data-call-id="call_rm"]');
  await pending.getByRole('button', { name: 'Deny', exact: true }).waitFor();
  const pinned = page.getByRole('region', { name: 'Plan' });
  await pinned.getByLabel('read the code (in progress)').waitFor({ timeout: 5000 });
  await shot(page, 'ui-plan-pinned-while-running');

  await pending.getByRole('button', { name: 'Deny', exact: true }).click();
  await assistant(page, 'Stopped there.').waitFor();
  await runFinished(page);
  await pending.getByText('Denied by you').waitFor();
  assert.equal(await pending.getByText(/Ran without the sandbox|Ran in the sandbox/).count(), 0);
  await pending.scrollIntoViewIfNeeded();
  await shot(page, 'ui-denied-shell-card');
  assert.deepEqual(env.browser.consoleErrors, []);
});
