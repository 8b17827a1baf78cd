// What the window keeps: a session whose call changed a file, exported through the header's
// Export and imported back through Import (both native file dialogs, answered as a person
// would, by typing the path), opens with its rows and its "files changed"; a reply stopped
// while it streamed stays, marked as stopped, after a restart too, and the next request
// carries what had streamed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chatRequests, newSession, runFinished, sendMessage, shot, startAll, until } from '../harness.mjs';

let env, dir;

before(async () => {
  env = await startAll({ configured: true });
  dir = mkdtempSync(join(tmpdir(), 'loopdesk-keeps-'));
});

after(async () => {
  await env?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const assistant = (page, text) => page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: text });
const openID = (page) => page.locator('main[data-session-id]').getAttribute('data-session-id');

/**
 * Answers the app's GTK file dialog titled title with path, through the X server the app
 * draws on (the test runs under xvfb-run): the dialog is found by its title, focused, and
 * the path typed into its location field (Ctrl+L) and confirmed with Enter.
 */
async function answerFileDialog(title, path) {
  const x = (...args) => execFileSync('xdotool', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
  const wid = await until(`the "${title}" dialog`, () => {
    try {
      return x('search', '--onlyvisible', '--name', `^${title}$`).split('\n')[0];
    } catch {
      return null; // xdotool exits 1 while no window matches
    }
  }, 15000);
  x('windowfocus', '--sync', wid);
  x('key', '--clearmodifiers', 'ctrl+l');
  x('key', '--clearmodifiers', 'ctrl+a');
  x('type', '--delay', '10', path);
  // The location field may first take Enter to close its completion popup: Enter again until
  // the dialog has gone (each press only once the last one had time to act).
  const open = () => {
    try {
      return x('search', '--onlyvisible', '--name', `^${title}$`) !== '';
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 3 && open(); i++) {
    x('key', '--clearmodifiers', 'Return');
    await until(`the "${title}" dialog to close`, () => !open(), 2000).catch(() => {});
  }
  assert.equal(open(), false, `the "${title}" dialog took ${path}`);
}

test("the window's Import opens its own Export of a session whose call changed a file", async () => {
  const { page } = env.browser;
  await newSession(page);
  await env.fake.enqueue(
    { kind: 'text', text: '', calls: [{ id: 'call_notes', name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content: 'first line\nsecond line\n' }) }] },
    { kind: 'text', text: 'Wrote the notes.' },
  );
  await sendMessage(page, 'write the round trip notes');
  const card = page.locator('[data-call-id="call_notes"]');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await assistant(page, 'Wrote the notes.').waitFor();
  await runFinished(page);
  await card.getByRole('region', { name: /^Files changed by row \d+$/ }).getByRole('button', { name: / notes\.md$/ }).waitFor();
  const original = await openID(page);

  const file = join(dir, 'round-trip.jsonl');
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  await answerFileDialog('Export session', file);
  await page.getByText(`Exported to ${file}`).waitFor();
  // The export holds the lines the store's own import refused: the call's change record.
  const types = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).type);
  assert.ok(types.includes('change'), `the export has the call's change (line types: ${[...new Set(types)].join(', ')})`);

  await page.getByRole('button', { name: 'Import session' }).click();
  await answerFileDialog('Import a session', file);
  await until('the imported session to open', async () => {
    const id = await openID(page);
    return id && id !== original;
  });
  // The imported copy reads as the original did: the prompt, the approved call with the file
  // it changed (its diff opens), the reply; and no error above the conversation.
  await page.getByRole('article', { name: 'You' }).filter({ hasText: 'write the round trip notes' }).waitFor();
  await assistant(page, 'Wrote the notes.').waitFor();
  const copy = page.locator('[data-call-id="call_notes"]');
  await copy.getByText(/^Approved by you/).waitFor();
  const changes = copy.getByRole('region', { name: /^Files changed by row \d+$/ });
  await changes.getByText('1 file changed').waitFor();
  await changes.getByRole('button', { name: / notes\.md$/ }).click();
  await changes.getByRole('figure', { name: /^Diff of notes\.md at row \d+$/ }).getByText('+ second line').waitFor();
  assert.equal(await page.getByText(/bad import file/).count(), 0);
  await copy.scrollIntoViewIfNeeded();
  await shot(page, 'keeps-imported-export');
  assert.deepEqual(env.browser.consoleErrors, []);
});

test('Stop keeps the reply that had streamed, after a restart too, and the next request carries it', async () => {
  const { page } = env.browser;
  await newSession(page);
  const words = 'The harbour lights come on one by one while the tide turns and the boats come home';
  // Six words stream, then the model goes quiet until the app lets go of the request.
  await env.fake.enqueue({ kind: 'text', text: words, stall_after: 6 });
  await sendMessage(page, 'describe the harbour at dusk');
  const streamed = 'The harbour lights come on one';
  await page.locator('.conversation').getByText(streamed).waitFor();
  await page.getByRole('button', { name: 'Stop' }).click();
  await runFinished(page);

  const reply = assistant(page, streamed);
  await reply.getByRole('note', { name: 'Reply stopped' }).getByText('Stopped here: you stopped the run while this reply was being written.').waitFor();
  assert.equal((await reply.textContent()).includes('boats come home'), false, 'only what streamed is kept');
  await shot(page, 'keeps-stopped-reply');

  env.app = await env.restart();
  await page.goto(env.app.url);
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /describe the harbour at dusk/ }).click();
  await assistant(page, streamed).getByRole('note', { name: 'Reply stopped' }).waitFor();
  await shot(page, 'keeps-stopped-reply-after-restart');

  await env.fake.enqueue({ kind: 'text', text: 'Going on from the lights.' });
  await sendMessage(page, 'go on');
  await assistant(page, 'Going on from the lights.').waitFor();
  await runFinished(page);
  const last = (await chatRequests(env.fake)).at(-1).messages.filter((m) => m.role !== 'system');
  assert.deepEqual(last.map((m) => m.role), ['user', 'assistant', 'user']);
  const kept = typeof last[1].content === 'string' ? last[1].content : JSON.stringify(last[1].content);
  assert.ok(kept.includes(streamed), `the next request carries the stopped reply: ${kept}`);
  assert.ok(!kept.includes('boats come home'), 'and nothing that never streamed');
  assert.deepEqual(env.browser.consoleErrors, []);
});
