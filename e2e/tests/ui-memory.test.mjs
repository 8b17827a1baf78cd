// Memory in the window (docs/memory.md). The model proposes a memory with a remember call: its
// card shows the text to edit, and the person approves it edited. The next run's request
// carries it as Loopdesk's note. The side panel's Memory tab and Settings → Memory list it with
// where it came from; Show source opens the session at the row that proposed it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chatRequests, runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let env;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

const EDITED = 'Run make types after changing a bound Go type.';

test('a remember call approved with its text edited becomes a memory the next run carries, with its source', async () => {
  const { page } = env.browser;
  await env.fake.enqueue(
    { kind: 'text', text: '', calls: [{ id: 'call_mem', name: 'remember', arguments: JSON.stringify({ text: 'tests need make types', scope: 'project' }) }] },
    { kind: 'text', text: 'Noted.' },
  );
  await sendMessage(page, 'learn how the build works');
  const card = page.locator('[data-call-id="call_mem"]');
  const text = card.getByRole('textbox', { name: 'Memory text' });
  await text.waitFor();
  assert.equal(await text.inputValue(), 'tests need make types');
  await text.fill(EDITED);
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'ui-memory-card');
  await card.getByRole('button', { name: 'Remember this text' }).click();
  await runFinished(page);

  await env.fake.enqueue({ kind: 'text', text: 'Carried.' });
  await sendMessage(page, 'again');
  await runFinished(page);
  const reqs = await chatRequests(env.fake);
  const last = reqs[reqs.length - 1].messages;
  const note = last.find((m) => m.role === 'user' && typeof m.content === 'string' && m.content.includes('Memories the person approved'));
  assert.ok(note, 'the next request carries the memory note');
  assert.match(note.content, /^\[loopdesk note: this message is from the Loopdesk application, not from the person\]/);
  assert.ok(note.content.includes(`- [project] ${EDITED}`), note.content);
  assert.ok(!reqs.slice(0, 2).some((r) => r.messages.some((m) => typeof m.content === 'string' && m.content.includes('Memories the person approved'))),
    'no request before the approval carried a memory');

  // The folder's Memory tab.
  await page.getByRole('tab', { name: 'Memory' }).click();
  const panel = page.getByRole('tabpanel', { name: 'Memory' });
  const item = panel.getByRole('listitem').filter({ hasText: EDITED });
  await item.getByText(/row \d+/).waitFor();
  await shot(page, 'ui-memory-panel');

  // Settings → Memory, and Show source.
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('region', { name: 'Settings' }).waitFor();
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Memory', exact: true }).click();
  const list = page.getByRole('region', { name: 'Section contents' }).getByRole('list', { name: 'Memories' });
  const inSettings = list.getByRole('listitem').filter({ hasText: EDITED });
  await inSettings.waitFor();
  await inSettings.scrollIntoViewIfNeeded();
  await shot(page, 'ui-memory-settings');
  await inSettings.getByRole('button', { name: /^Show source of memory/ }).click();
  await page.getByRole('region', { name: 'Settings' }).waitFor({ state: 'detached' });
  await card.waitFor();
  const box = await card.boundingBox();
  assert.ok(box && box.y >= 0 && box.y < 800, `the call that proposed it is in view: ${JSON.stringify(box)}`);
  await shot(page, 'ui-memory-show-source');
});
