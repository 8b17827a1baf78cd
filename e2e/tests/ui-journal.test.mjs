// The journal keeps every fact, in the window: Stop with a message queued stops
// the run and nothing else (the message stays queued, with Send now and Remove); a message
// queued when the app is killed is there after a restart and can be sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chatRequests, newSession, runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let fake, app, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, app, browser } = env);
});

after(async () => {
  await env?.stop();
});

const card = (page, tool) => page.getByRole('region', { name: `Tool call ${tool}` });
const queuedList = (page) => page.getByRole('list', { name: 'Queued messages' });

test('Stop with a message queued stops the run and keeps the message queued', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue({ kind: 'text', text: 'Let me write it.', calls: [{ id: 'call_w', name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'a\n' }) }] });
  await sendMessage(page, 'write a.txt');
  await card(page, 'write_file').getByRole('button', { name: 'Approve', exact: true }).waitFor();
  await sendMessage(page, 'then write b.txt');
  await queuedList(page).getByText('then write b.txt').waitFor();
  const before = (await chatRequests(fake)).length;

  await page.getByRole('button', { name: 'Stop' }).click();
  await runFinished(page);
  // Nothing else ran: the message is still queued, now with Send now, and no request went out.
  await page.getByRole('button', { name: 'Send now: then write b.txt' }).waitFor();
  await shot(page, 'journal-stop-keeps-queue');
  assert.equal((await chatRequests(fake)).length, before, 'Stop started another run');

  // Send now runs it, as a new run's prompt.
  await fake.enqueue({ kind: 'text', text: 'Done with b.' });
  await page.getByRole('button', { name: 'Send now: then write b.txt' }).click();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Done with b.' }).waitFor();
  await runFinished(page);
  await queuedList(page).waitFor({ state: 'detached' });
  const last = (await chatRequests(fake)).at(-1).messages;
  assert.equal(last.at(-1).content, 'then write b.txt');
  assert.deepEqual(browser.consoleErrors, []);
});

test('a queued message survives a crash and a restart of the app', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue({ kind: 'text', text: 'Checking.', calls: [{ id: 'call_l', name: 'list_dir', arguments: JSON.stringify({ path: '.' }) }] });
  await sendMessage(page, 'look at the folder');
  await card(page, 'list_dir').getByRole('button', { name: 'Approve', exact: true }).waitFor();
  await sendMessage(page, 'and remember this one');
  await queuedList(page).getByText('and remember this one').waitFor();

  app = await env.restart({ kill: true });
  await page.goto(app.url);
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /look at the folder/ }).click();
  await queuedList(page).getByText('and remember this one').waitFor();
  await page.getByRole('button', { name: 'Remove queued message: and remember this one' }).waitFor();
  await shot(page, 'journal-queue-after-restart');

  await fake.enqueue({ kind: 'text', text: 'Remembered.' });
  await page.getByRole('button', { name: 'Send now: and remember this one' }).click();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Remembered.' }).waitFor();
  await runFinished(page);
  const last = (await chatRequests(fake)).at(-1).messages;
  assert.equal(last.at(-1).content, 'and remember this one');
  const results = last.filter((m) => m.role === 'tool');
  assert.equal(results.length, 1, 'the interrupted call has its one result');
});
