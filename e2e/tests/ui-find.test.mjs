// Find in session over a session longer than what the conversation renders (its
// last 200 rows): Ctrl+F counts the matches of every row — messages, tool arguments and tool
// output — and moving to a match in a row not rendered renders it, opens its card and
// scrolls to it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, docShot, startAll, until } from '../harness.mjs';

let browser, env;

before(async () => {
  env = await startAll({ configured: true, seed: (h) => importSession(h, 600) });
  ({ browser } = env);
});

after(async () => {
  await env?.stop();
});

/** A session of n rows in groups of four (question, tool call, its output, answer); "zebra" is in row 1, in row 3's tool output, and in the last row. */
function importSession(h, n) {
  const at = new Date().toISOString();
  const lines = [JSON.stringify({ type: 'session', format: 1, session: { id: 'long', title: 'a long session', workspace: '', model: 'fake-model', parent_id: '', fork_seq: 0, created_at: at, updated_at: at } })];
  for (let seq = 1; seq <= n; seq++) {
    const g = Math.floor((seq - 1) / 4);
    const kind = ['user', 'assistant', 'tool_result', 'assistant'][(seq - 1) % 4];
    let payload = [
      { text: `Question ${g}: what is in file ${g}?` },
      { text: '', reasoning: '', tool_calls: [{ id: `c${g}`, name: 'read_file', arguments: JSON.stringify({ path: `src/file${g}.go` }) }] },
      { call_id: `c${g}`, name: 'read_file', content: `package main\n\n// file ${g}\n`, is_error: false },
      { text: `File ${g} is short.`, reasoning: '', tool_calls: [] },
    ][(seq - 1) % 4];
    if (seq === 1) payload = { text: 'Where is the zebra?' };
    if (seq === 3) payload = { ...payload, content: 'package main\n\n// the zebra hides in this output\n' };
    if (seq === n) payload = { text: 'No zebra at the end.', reasoning: '', tool_calls: [] };
    lines.push(JSON.stringify({ type: 'chunk', seq, kind, payload, run_id: '', created_at: at }));
  }
  const file = join(h.dir, 'long.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  execFileSync(join(ROOT, 'build', 'bin', 'loopdesk-dev'), ['sessions', 'import', file, '--db', h.db], { stdio: 'pipe' });
}

test('Ctrl+F counts the matches of the whole session and moves to ones not rendered', async () => {
  const { page } = browser;
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /a long session/ }).click();
  await page.getByText('No zebra at the end.').waitFor();
  assert.equal(await page.locator('.conversation [data-seq="1"]').count(), 0, 'the first rows are not rendered');
  await page.getByRole('region', { name: 'Conversation' }).click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Control+f');
  const find = page.getByRole('textbox', { name: 'Find in session' });
  await find.fill('Zebra');
  const count = page.getByRole('status', { name: 'Matches' });
  // Three in the session, one on screen: the first match on screen is the third.
  await until('3 of 3', async () => (await count.textContent()) === '3 of 3');
  await find.press('Shift+Enter');
  await until('2 of 3', async () => (await count.textContent()) === '2 of 3');
  // The tool output of row 3 is rendered, its card opened, and the match is on screen.
  const current = page.locator('.find-current');
  await until('the match in the tool output shown', async () => (await current.count()) === 1 && /zebra hides/.test(await current.textContent()));
  assert.ok(await current.isVisible(), 'the current match is visible');
  const box = await current.boundingBox();
  const view = await page.getByRole('region', { name: 'Conversation' }).boundingBox();
  assert.ok(box.y >= view.y && box.y + box.height <= view.y + view.height, 'scrolled into the conversation');
  await docShot(page, 'find-whole-session');
  await find.press('Shift+Enter');
  await until('1 of 3', async () => (await count.textContent()) === '1 of 3');
  await page.locator('.conversation [data-seq="1"]').filter({ hasText: 'Where is the zebra?' }).waitFor();
  await find.press('Shift+Enter'); // wraps to the newest
  await until('3 of 3 again', async () => (await count.textContent()) === '3 of 3');
  await find.press('Escape');
  await find.waitFor({ state: 'detached' });
  assert.deepEqual(browser.consoleErrors, []);
});
