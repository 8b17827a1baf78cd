// Regenerate and the folder: a write_file reply regenerated with "Also restore files to before
// this message" ticked leaves the file as it was before the message; regenerated with the box
// unticked, the file stays and the new version's request names it in Loopdesk's note.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chatRequests, docShot, runFinished, sendMessage, startAll, until } from '../harness.mjs';

let env, folder;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

const read = (p) => readFileSync(join(folder, p), 'utf8');
const reply = (page, text) => page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: text });
const sessionID = (page) => page.locator('main[data-session-id]').getAttribute('data-session-id');
const userTexts = (req) => req.messages.filter((m) => m.role === 'user' && typeof m.content === 'string').map((m) => m.content);

/** The model makes one call, approved in the window, then answers reply. */
async function call(page, id, name, args, message, answer) {
  await env.fake.enqueue({ kind: 'text', text: '', calls: [{ id, name, arguments: JSON.stringify(args) }] }, { kind: 'text', text: answer });
  await sendMessage(page, message);
  await page.locator(`[data-call-id="${id}"]`).getByRole('button', { name: 'Approve', exact: true }).click();
  await reply(page, answer).waitFor();
  await runFinished(page);
  return page.locator(`[data-call-id="${id}"]`);
}

/** Clicks Regenerate under the reply, sets the box, confirms, and waits for answer in the new version. */
async function regenerate(page, of, restore, answer, shotName) {
  const from = await sessionID(page);
  await env.fake.enqueue({ kind: 'text', text: answer });
  await reply(page, of).getByRole('button', { name: 'Regenerate' }).click();
  const dialog = page.getByRole('dialog', { name: 'Regenerate reply' });
  const box = dialog.getByRole('checkbox', { name: 'Also restore files to before this message' });
  await box.waitFor();
  assert.equal(await box.isChecked(), true, 'restore is on by default when the run changed files');
  assert.match(await dialog.textContent(), /notes\.txt \(modified\)/);
  if (shotName) await docShot(page, shotName);
  if (!restore) await box.uncheck();
  await dialog.getByRole('button', { name: 'Regenerate', exact: true }).click();
  await until('the new version to open', async () => (await sessionID(page)) !== from);
  await reply(page, answer).waitFor();
  await runFinished(page);
}

test('Regenerate with the box ticked restores the file; unticked, the next request names it', async () => {
  const { page } = env.browser;
  const setup = await call(page, 'call_setup', 'run_shell_command', { command: "pwd && printf 'before\\n' > notes.txt" }, 'make the notes', 'Made the notes.');
  folder = (await setup.locator('.tool-result pre').textContent()).match(/^(\/\S+)$/m)?.[1];
  assert.equal(read('notes.txt'), 'before\n', `the session's folder (${folder})`);

  await call(page, 'call_write', 'write_file', { path: 'notes.txt', content: 'after\n' }, 'rewrite the notes', 'Rewrote the notes.');
  assert.equal(read('notes.txt'), 'after\n');

  await regenerate(page, 'Rewrote the notes.', true, 'Left the notes alone.', 'ui-regenerate-restore-files');
  assert.equal(read('notes.txt'), 'before\n', 'restored to before the message');
  const restored = await chatRequests(env.fake);
  assert.ok(!userTexts(restored.at(-1)).some((t) => t.includes('kept them')), 'no kept-files note after a restore');

  await call(page, 'call_write2', 'write_file', { path: 'notes.txt', content: 'after again\n' }, 'rewrite them again', 'Rewrote them again.');
  await regenerate(page, 'Rewrote them again.', false, 'Kept them as they are.');
  assert.equal(read('notes.txt'), 'after again\n', 'kept');
  const notes = userTexts((await chatRequests(env.fake)).at(-1)).filter((t) => t.startsWith('[loopdesk note'));
  assert.equal(notes.length, 1, `one Loopdesk note in the request: ${JSON.stringify(notes)}`);
  assert.match(notes[0], /- notes\.txt \(modified\)/);
  // The note is a row of the new version, shown as Loopdesk's note.
  await page.getByRole('article', { name: 'Loopdesk note' }).getByText('Files another version changed were kept').waitFor();
  assert.deepEqual(env.browser.consoleErrors, []);
});
