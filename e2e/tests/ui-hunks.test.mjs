// Hunk review in the window: the Changes tab lists the agent's hunks; "Revert hunk"
// puts one back in the file and the next request tells the model; approval mode review shows
// a write's hunks on its card and writes only the kept ones; a fork with its own folder
// applies its change to the parent's folder, where it waits as a hunk to review.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chatRequests, editSettings, runFinished, sendMessage, shot, startAll } from '../harness.mjs';

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

/** The model makes one call, then says reply; waits for the reply. */
async function call(page, id, name, args, reply, prompt = `do ${id}`) {
  await env.fake.enqueue({ kind: 'text', text: '', calls: [{ id, name, arguments: JSON.stringify(args) }] }, { kind: 'text', text: reply });
  await sendMessage(page, prompt);
  await assistant(page, reply).waitFor();
  await runFinished(page);
}

test('Changes tab: Revert hunk puts one hunk back and the next request tells the model', async () => {
  const { page } = env.browser;
  await call(page, 'call_setup', 'run_shell_command', { command: "pwd && seq 1 30 | sed 's/^/line /' > a.txt" }, 'Made a.txt.');
  folder = (await page.locator('[data-call-id="call_setup"] .tool-result pre').textContent()).match(/^(\/\S+)$/m)?.[1];
  assert.equal(read('a.txt'), lines(30));
  await call(page, 'call_edit', 'write_file', { path: 'a.txt', content: lines(30, { 3: 'THREE', 15: 'FIFTEEN', 27: 'TWENTY-SEVEN' }) }, 'Rewrote three lines.');

  await page.getByRole('tab', { name: 'Changes' }).click();
  const panel = page.getByRole('region', { name: 'Changes' });
  await panel.getByText('4 unreviewed hunks').waitFor();
  const created = panel.getByRole('listitem', { name: /^Hunk 1 of a\.txt at row \d+$/ }).first();
  await created.getByRole('button', { name: 'Keep' }).click();
  await panel.getByText('3 unreviewed hunks').waitFor();
  const second = panel.getByRole('listitem', { name: /^Hunk 2 of a\.txt at row \d+$/ });
  await second.getByText('+FIFTEEN').waitFor();
  await second.getByRole('button', { name: 'Revert hunk' }).click();
  await panel.getByRole('status').filter({ hasText: /Reverted hunk 2 of a\.txt \(now lines 12–18\)/ }).waitFor();
  await panel.getByText('2 unreviewed hunks').waitFor();
  assert.equal(read('a.txt'), lines(30, { 3: 'THREE', 27: 'TWENTY-SEVEN' }));
  await page.getByRole('article', { name: 'Loopdesk note' }).filter({ hasText: 'You reverted a hunk' }).waitFor();
  await shot(page, 'ui-hunks-changes');

  await env.fake.enqueue({ kind: 'text', text: 'Noted.' });
  await sendMessage(page, 'what changed?');
  await assistant(page, 'Noted.').waitFor();
  await runFinished(page);
  const reqs = await chatRequests(env.fake);
  const last = JSON.stringify(reqs[reqs.length - 1].messages);
  assert.match(last, /loopdesk note/);
  assert.match(last, /reverted hunk 2 of the change row \d+ made to a\.txt: lines 12-18/);
  assert.deepEqual(env.browser.consoleErrors, []);
});

test('approval mode review: the card shows the hunks; only the kept one is written', async () => {
  const { page } = env.browser;
  await editSettings(page, (p) => p.getByLabel('Default approval mode').selectOption('review'));
  const now = read('a.txt');
  const proposed = now.replace('line 1\n', 'LINE ONE\n').replace('line 30\n', 'LINE THIRTY\n');
  await env.fake.enqueue(
    { kind: 'text', text: '', calls: [{ id: 'call_review', name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: proposed }) }] },
    { kind: 'text', text: 'Wrote what you kept.' },
  );
  await sendMessage(page, 'rewrite the ends');
  const card = page.locator('[data-call-id="call_review"]');
  const review = card.getByRole('group', { name: 'Review hunks' });
  await review.getByRole('listitem', { name: 'Hunk 2' }).getByText('+LINE THIRTY').waitFor();
  assert.equal(read('a.txt'), now, 'nothing is written before the approval');
  await review.getByRole('radio', { name: 'Drop hunk 1' }).check();
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'ui-hunks-review-card');
  await card.getByRole('button', { name: 'Approve 1 of 2 hunks' }).click();
  await assistant(page, 'Wrote what you kept.').waitFor();
  await runFinished(page);
  assert.equal(read('a.txt'), now.replace('line 30\n', 'LINE THIRTY\n'));
  const reqs = await chatRequests(env.fake);
  const tool = reqs[reqs.length - 1].messages.filter((m) => m.role === 'tool').pop();
  assert.match(tool.content, /hunk 1 \(your lines 1-4, replacing lines 1-4\): dropped/);
  assert.match(tool.content, /hunk 2 .*: kept/);
  await editSettings(page, (p) => p.getByLabel('Default approval mode').selectOption('auto'));
});

test('Apply to parent folder: the fork’s change lands in the parent as a hunk to review', async () => {
  const { page } = env.browser;
  const parent = await page.locator('main[data-session-id]').getAttribute('data-session-id');
  await page.getByRole('tab', { name: 'Chunks' }).click();
  const row = page.getByRole('table', { name: 'Chunk table' }).getByRole('row').filter({ hasText: 'Wrote what you kept.' });
  await row.click();
  await page.getByRole('button', { name: 'Fork with its own copy of the folder' }).click();
  await page.getByRole('button', { name: /forked from .* at #\d+/ }).waitFor();
  await call(page, 'call_fork', 'edit_file', { path: 'a.txt', old_string: 'line 10\n', new_string: 'line ten, from the fork\n' }, 'Edited in the fork.');

  await page.getByRole('tab', { name: 'Changes' }).click();
  const bar = page.getByRole('region', { name: 'Changes' }).getByLabel('Fork folder');
  await bar.getByText(/Works in \/\S+\/forks\//).waitFor();
  await bar.getByRole('button', { name: 'Apply to parent folder' }).click();
  await page.getByRole('status').filter({ hasText: /Applied a\.txt to the parent's folder/ }).waitFor();
  assert.match(read('a.txt'), /line ten, from the fork\n/);
  await bar.getByRole('button', { name: 'Review in the parent session' }).click();
  await page.locator(`main[data-session-id="${parent}"]`).waitFor();
  const panel = page.getByRole('region', { name: 'Changes' });
  const applied = panel.getByRole('listitem').filter({ hasText: '+line ten, from the fork' });
  await applied.waitFor();
  await applied.getByRole('button', { name: 'Keep' }).waitFor();
  await shot(page, 'ui-hunks-applied');
  assert.deepEqual(env.browser.consoleErrors, []);
});
