// A fork's inherited rows in the window: the shell call's card in the fork lists the files
// its parent's call changed, and "Restore files to before this row" there restores the shared
// folder, as a row of the fork. And a search hit deep in a long session opens the chunk table
// with the hit's row selected and in view below the open row detail.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** The model runs one shell command, approved in the window; returns its card. */
async function runShell(page, id, command, reply) {
  await env.fake.enqueue({ kind: 'text', text: '', calls: [{ id, name: 'run_shell_command', arguments: JSON.stringify({ command }) }] }, { kind: 'text', text: reply });
  await sendMessage(page, `run ${id}`);
  const card = page.locator(`[data-call-id="${id}"]`);
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await assistant(page, reply).waitFor();
  await runFinished(page);
  return card;
}

test("a fork's inherited row lists its files changed and restores them as a row of the fork", async () => {
  const { page } = env.browser;
  const setup = await runShell(page, 'call_pwd', 'pwd', 'Here.');
  const folder = (await setup.locator('.tool-result pre').textContent()).match(/^(\/\S+)$/m)?.[1];
  assert.ok(folder && existsSync(folder), `the session's folder (${folder})`);
  await runShell(page, 'call_make', "printf 'made\\n' > made.txt && printf 'notes\\n' > notes.txt", 'Two files made.');
  await sendMessage(page, 'thanks');
  await assistant(page, 'You said: thanks').waitFor();
  await runFinished(page);

  // Fork from the last row: the fork opens with copies of the rows, the call's among them.
  await page.getByRole('tab', { name: 'Chunks' }).click();
  const table = page.getByRole('table', { name: 'Chunk table' });
  await table.getByRole('row').filter({ hasText: 'You said: thanks' }).click();
  await table.getByRole('row').filter({ hasText: 'You said: thanks' }).getByRole('button', { name: 'Fork from here' }).click();
  await page.getByRole('button', { name: /forked from .* at #\d+/ }).waitFor();
  await page.getByRole('tab', { name: 'Budget' }).click();

  const card = page.locator('[data-call-id="call_make"]');
  const changes = card.getByRole('region', { name: /^Files changed by row \d+$/ });
  await changes.getByText('2 files changed').waitFor();
  assert.equal(await changes.getByRole('button', { name: / made\.txt$/ }).textContent(), 'created made.txt');
  await changes.getByRole('button', { name: / made\.txt$/ }).click();
  await changes.getByRole('figure', { name: /^Diff of made\.txt at row \d+$/ }).getByText('+ made').waitFor();
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'ui-fork-inherited-changes');

  await changes.getByRole('button', { name: 'Restore files to before this row' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore files' });
  await dialog.getByRole('list', { name: 'Files to restore' }).waitFor();
  await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  const restored = page.getByRole('article', { name: 'Restore' }).filter({ hasText: /Restored 2 files to before row #\d+/ });
  await restored.waitFor();
  await restored.scrollIntoViewIfNeeded();
  assert.equal(existsSync(join(folder, 'made.txt')), false);
  assert.equal(existsSync(join(folder, 'notes.txt')), false);
  await shot(page, 'ui-fork-inherited-restored');
  assert.deepEqual(env.browser.consoleErrors, []);
});

test("a search hit deep in a long session: the chunk table selects the hit's row and shows it", async () => {
  const { page } = env.browser;
  await newSession(page);
  for (let i = 1; i <= 16; i++) {
    const word = i === 14 ? `quokka ${i}` : `filler ${i}`;
    await sendMessage(page, word);
    await assistant(page, `You said: ${word}`).waitFor();
    await runFinished(page);
  }
  await newSession(page); // the hit opens the long session from another one
  await page.getByRole('tab', { name: 'Chunks' }).click();
  await page.getByLabel('Search sessions').fill('quokka');
  const results = page.getByRole('region', { name: 'Search results' });
  await results.getByRole('button', { name: /quokka/ }).first().click();

  const detail = page.getByRole('region', { name: /^Row \d+$/ });
  await detail.getByLabel('Payload').getByText('quokka 14').waitFor();
  const seq = Number((await detail.getAttribute('aria-label')).match(/\d+/)[0]);
  const table = page.getByRole('table', { name: 'Chunk table' });
  const row = table.locator(`[role=row][data-seq="${seq}"]`);
  assert.equal(await row.getAttribute('aria-selected'), 'true');
  const body = table.locator('.tbody');
  // In view: the row's box inside the scroller's, once the detail below has taken its room.
  await until('the hit row in view in the chunk table', async () => {
    const [r, b] = [await row.boundingBox(), await body.boundingBox()];
    return r && b && r.y >= b.y - 1 && r.y + r.height <= b.y + b.height + 1;
  }, 5000);
  await shot(page, 'ui-chunk-table-search-hit');
  assert.deepEqual(env.browser.consoleErrors, []);
});
