// The walking skeleton, end to end: configure the endpoint in the settings
// screen, send a message, watch the reply stream in, and find the session
// again after a reload and after a restart of the app.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { configure, shot, until, startAll } from '../harness.mjs';

let fake, app, browser, env;

before(async () => {
  env = await startAll();
  ({ fake, app, browser } = env);
});

after(async () => {
  await env?.stop();
});

test('a message streams a reply and the session survives a reload and a restart', async () => {
  const { page } = browser;
  await page.goto(app.url);
  await configure(page, fake.url);
  await shot(page, '01-settings');
  await page.getByRole('button', { name: 'Close' }).click();

  const words = 'Streaming works one word at a time across the Wails bridge into the window'.split(' ');
  await fake.enqueue({ kind: 'text', text: words.join(' '), delay_ms: 120 });
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('hello loopdesk');
  await box.press('Enter');

  // Token by token: the reply is seen part-way before it is complete.
  const streaming = page.getByRole('article', { name: 'Assistant reply (streaming)' });
  const partial = await until('a partial reply', async () => {
    const t = (await streaming.textContent({ timeout: 200 })) ?? '';
    return t.startsWith('Streaming') && !t.includes('window') ? t : null;
  });
  assert.ok(partial.split(' ').length < words.length, `saw a partial reply: ${partial}`);
  await shot(page, '02-streaming');
  const stored = page.getByRole('article', { name: 'Assistant' });
  await stored.filter({ hasText: words.join(' ') }).waitFor();
  await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
  await shot(page, '03-reply');

  // What the app sent: the user's text, streamed, with usage requested.
  const reqs = await fake.requests();
  const chat = reqs.filter((r) => r.path.endsWith('/chat/completions'));
  assert.equal(chat.length, 1);
  const body = JSON.parse(chat[0].body);
  assert.equal(body.model, 'fake-model');
  assert.equal(body.stream, true);
  assert.deepEqual(body.messages.at(-1), { role: 'user', content: 'hello loopdesk' });

  // After a reload the session is in the list and opens with its rows.
  await page.reload();
  const nav = page.getByRole('navigation', { name: 'Sessions' });
  await nav.getByRole('button', { name: /hello loopdesk/ }).click();
  await stored.filter({ hasText: words.join(' ') }).waitFor();

  // Continue it: the second request carries the whole conversation.
  await box.fill('and again');
  await box.press('Enter');
  await stored.filter({ hasText: 'You said: and again' }).waitFor();
  const second = JSON.parse((await fake.requests()).filter((r) => r.path.endsWith('/chat/completions'))[1].body);
  assert.deepEqual(
    second.messages.map((m) => m.role),
    ['system', 'user', 'assistant', 'user'],
  );
  // The first request is a byte-for-byte prefix of the second (prompt caches keep working).
  const first = JSON.parse((await fake.requests()).filter((r) => r.path.endsWith('/chat/completions'))[0].body);
  assert.deepEqual(second.messages.slice(0, 2), first.messages);

  // After a restart of the app, the same.
  app = await env.restart();
  await page.goto(app.url);
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /hello loopdesk/ }).click();
  await stored.filter({ hasText: 'You said: and again' }).waitFor();
  assert.deepEqual(browser.consoleErrors, []);
});
