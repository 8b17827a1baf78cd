// Checkpoints in the window: a shell command that `sed -i`s a file, `rm`s one and creates one;
// its card lists the three changes with a diff; "Restore files to before this row" previews,
// then restores them byte-identical; a file the test edits meanwhile shows as a conflict and,
// left unchecked, is kept while the others are restored.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let env, folder;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

const SETUP = "pwd && printf 'one\\ntwo\\n' > a.txt && printf 'keep me\\n' > b.txt";
const CHANGE = "sed -i 's/one/ONE/' a.txt && rm b.txt && printf 'new\\n' > c.txt";
const read = (p) => readFileSync(join(folder, p), 'utf8');

/** The model runs one shell command, approved in the window; returns its card. */
async function runShell(page, id, command, reply) {
  await env.fake.enqueue({ kind: 'text', text: '', calls: [{ id, name: 'run_shell_command', arguments: JSON.stringify({ command }) }] }, { kind: 'text', text: reply });
  await sendMessage(page, `run ${id}`);
  const card = page.locator(`[data-call-id="${id}"]`);
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: reply }).waitFor();
  await runFinished(page);
  return card;
}

test('a shell command that edits, removes and creates files: listed with a diff, restored byte-identical', async () => {
  const { page } = env.browser;
  const setup = await runShell(page, 'call_setup', SETUP, 'Files made.');
  folder = (await setup.locator('.tool-result pre').textContent()).match(/^(\/\S+)$/m)?.[1];
  assert.ok(folder && existsSync(join(folder, 'a.txt')), `the session's folder (${folder})`);

  const card = await runShell(page, 'call_change', CHANGE, 'Changed three files.');
  const changes = card.getByRole('region', { name: /^Files changed by row \d+$/ });
  await changes.getByText('3 files changed').waitFor();
  assert.equal(await changes.getByRole('button', { name: / a\.txt$/ }).textContent(), 'modified a.txt');
  assert.equal(await changes.getByRole('button', { name: / b\.txt$/ }).textContent(), 'deleted b.txt');
  assert.equal(await changes.getByRole('button', { name: / c\.txt$/ }).textContent(), 'created c.txt');
  await changes.getByRole('button', { name: / a\.txt$/ }).click();
  const diff = changes.getByRole('figure', { name: /^Diff of a\.txt at row \d+$/ });
  await diff.getByText('- one').waitFor();
  await diff.getByText('+ ONE').waitFor();
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'ui-checkpoint-changes');

  // The chunk table marks the row too.
  await page.getByRole('tab', { name: 'Chunks' }).click();
  await page.getByRole('table', { name: 'Chunk table' }).locator('[role=row].kind-tool_result').getByText('3 files').waitFor();
  await page.getByRole('tab', { name: 'Budget' }).click();

  await changes.getByRole('button', { name: 'Restore files to before this row' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore files' });
  const list = dialog.getByRole('list', { name: 'Files to restore' });
  await list.waitFor();
  assert.equal(await list.getByRole('listitem').count(), 3);
  assert.match(await list.textContent(), /a\.txt — content put back.*b\.txt — re-created.*c\.txt — removed/s);
  await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  // A restore is a row of its own.
  await page.getByRole('article', { name: 'Restore' }).filter({ hasText: /Restored 3 files to before row #\d+/ }).waitFor();
  assert.equal(read('a.txt'), 'one\ntwo\n');
  assert.equal(read('b.txt'), 'keep me\n');
  assert.equal(existsSync(join(folder, 'c.txt')), false);
  assert.deepEqual(env.browser.consoleErrors, []);
});

test('a file edited outside since is a conflict: kept unless the person chooses to overwrite it', async () => {
  const { page } = env.browser;
  const card = await runShell(page, 'call_again', CHANGE, 'Changed them again.');
  const changes = card.getByRole('region', { name: /^Files changed by row \d+$/ });
  await changes.getByText('3 files changed').waitFor();
  writeFileSync(join(folder, 'a.txt'), 'my own edit\n');

  await changes.getByRole('button', { name: 'Restore files to before this row' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore files' });
  const conflicts = dialog.getByRole('region', { name: 'Changed since' });
  await conflicts.getByText('a.txt', { exact: true }).waitFor();
  assert.match(await conflicts.textContent(), /a\.txt changed by someone outside this session/);
  await shot(page, 'ui-checkpoint-restore-preview');

  // Unchecked: a.txt keeps the person's edit; the other two are restored.
  await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(read('a.txt'), 'my own edit\n');
  assert.equal(read('b.txt'), 'keep me\n');
  assert.equal(existsSync(join(folder, 'c.txt')), false);

  // The single file, on its own and overwritten on purpose, from its diff.
  await changes.getByRole('button', { name: / a\.txt$/ }).click();
  await changes.getByRole('button', { name: 'Restore this file to before this row' }).click();
  await dialog.getByRole('checkbox', { name: 'Overwrite a.txt' }).check();
  await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(read('a.txt'), 'one\ntwo\n');
  assert.deepEqual(env.browser.consoleErrors, []);
});
