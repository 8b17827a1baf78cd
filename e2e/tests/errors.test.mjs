// A wrong base URL, a refused connection, a 401 and a server that answers HTML
// each show a clear message in the window and leave the session usable.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { configure, freePort, shot, startAll } from '../harness.mjs';

let fake, app, browser, env;

before(async () => {
  env = await startAll();
  ({ fake, app, browser } = env);
});

after(async () => {
  await env?.stop();
});

async function testConnection(page, url) {
  await page.getByLabel('Base URL').fill(url);
  await page.getByRole('button', { name: 'Test connection' }).click();
  const status = page.getByRole('status').first();
  await status.waitFor();
  await page.getByRole('button', { name: 'Test connection' }).waitFor();
  return (await status.textContent()) ?? '';
}

test('Test connection names the exact problem', async () => {
  const { page } = browser;
  await page.goto(app.url);
  await page.getByRole('region', { name: 'Settings' }).waitFor();

  const refusedPort = await freePort();
  assert.match(await testConnection(page, `http://127.0.0.1:${refusedPort}/v1`), /refused/i);
  assert.match(await testConnection(page, 'localhost:11434'), /not an http\(s\) URL/);
  // The fake's control API answers 404 for an unknown path: not an OpenAI API.
  assert.match(await testConnection(page, fake.url.replace(/\/v1$/, '/nope')), /404|not found|OpenAI/i);
  await shot(page, '04-connection-error');
});

test('a 401 and an HTML answer show clear errors and the session stays usable', async () => {
  const { page } = browser;
  await page.goto(app.url);
  await configure(page, fake.url);
  await page.getByRole('button', { name: 'Close' }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  const alert = page.getByRole('alert');

  await fake.enqueue({ kind: 'http_error', status: 401, body: '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}' });
  await box.fill('first try');
  await box.press('Enter');
  await alert.filter({ hasText: /401/ }).waitFor();
  assert.match((await alert.textContent()) ?? '', /Incorrect API key provided|unauthorized/i);
  await shot(page, '05-error-401');

  await fake.enqueue({ kind: 'html', status: 200 });
  await box.fill('second try');
  await box.press('Enter');
  await alert.filter({ hasText: /OpenAI-compatible|html/i }).waitFor();

  // Still usable: the next message gets a reply, and nothing typed was lost.
  await box.fill('third try');
  await box.press('Enter');
  await page.getByRole('article', { name: 'Assistant' }).filter({ hasText: 'You said: third try' }).waitFor();
  for (const t of ['first try', 'second try', 'third try']) {
    await page.getByRole('article', { name: 'You' }).filter({ hasText: t }).waitFor();
  }
});

test('a failed Go call reaches the page as a readable {code, message}', async () => {
  const { page } = browser;
  await page.goto(app.url);
  await page.waitForFunction(() => window.go?.desktop?.Sessions?.ForkSession !== undefined);
  const err = await page.evaluate(async () => {
    try {
      await window.go.desktop.Sessions.ForkSession('no-such-session', 1);
      return null;
    } catch (e) {
      return String(e && e.message !== undefined ? e.message : e);
    }
  });
  assert.ok(err, 'the call did not fail');
  const parsed = JSON.parse(err);
  assert.equal(parsed.code, 'not_found');
  assert.match(parsed.message, /no-such-session/);
});
