// The conversation controls, each by its accessible name, against the real Go
// backend and the fake model: Edit message forks before the message and the original stays;
// Regenerate makes a version and Previous/Next version move between them in place; Retry after
// a scripted 500 runs again without sending the message twice; Ctrl+F finds with counts;
// Copy code / a tool card's Copy fill the clipboard; Esc stops a run; Alt+Up/Down move
// between sessions.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chatRequests, docShot, editSettings, newSession, runFinished, sendMessage, shot, startAll, until } from '../harness.mjs';

let fake, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, browser } = env);
  const origin = new URL(env.app.url).origin;
  await browser.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
});

after(async () => {
  await env?.stop();
});

const sessionID = (page) => page.locator('main[data-session-id]').getAttribute('data-session-id');
const you = (page, text) => page.getByRole('article', { name: 'You', exact: true }).filter({ hasText: text });
const reply = (page, text) => page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: text });
const userTexts = (req) => req.messages.filter((m) => m.role === 'user').map((m) => m.content);

/** Waits until another session than before is the open one. */
async function switched(page, from) {
  return until('another session to open', async () => {
    const id = await sessionID(page);
    return id && id !== from ? id : null;
  });
}

test('Edit message forks before it, sends the new text there, and leaves the original', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue({ kind: 'text', text: 'Paris.' });
  await sendMessage(page, 'capital of France?');
  await reply(page, 'Paris.').waitFor();
  await runFinished(page);
  const original = await sessionID(page);

  await you(page, 'capital of France?').getByRole('button', { name: 'Edit message' }).click();
  const box = page.getByRole('textbox', { name: 'Edit message text' });
  assert.equal(await box.inputValue(), 'capital of France?');
  await box.fill('capital of Italy?');
  await docShot(page, 'controls-edit-message');
  await fake.enqueue({ kind: 'text', text: 'Rome.' });
  await page.getByRole('button', { name: 'Send edit' }).click();
  const fork = await switched(page, original);
  await reply(page, 'Rome.').waitFor();
  await runFinished(page);
  assert.deepEqual(userTexts((await chatRequests(fake)).at(-1)), ['capital of Italy?'], 'the fork sends only the edited message');
  assert.equal(await page.getByRole('article', { name: 'You', exact: true }).count(), 1);
  const versions = you(page, 'capital of Italy?').getByRole('group', { name: 'Versions' });
  await versions.getByText('2 / 2').waitFor();

  await versions.getByRole('button', { name: 'Previous version' }).click();
  await until('the original to open', async () => (await sessionID(page)) === original);
  await reply(page, 'Paris.').waitFor();
  await you(page, 'capital of France?').getByRole('group', { name: 'Versions' }).getByText('1 / 2').waitFor();
  assert.equal(await reply(page, 'Rome.').count(), 0, 'the original is unchanged');
  await you(page, 'capital of France?').getByRole('button', { name: 'Next version' }).click();
  await until('the edit to open again', async () => (await sessionID(page)) === fork);
  await reply(page, 'Rome.').waitFor();
  assert.deepEqual(browser.consoleErrors, []);
});

test('Regenerate makes a new version of the reply; the versions switch in place', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue({ kind: 'text', text: 'A haiku, first draft.' });
  await sendMessage(page, 'write a haiku');
  await reply(page, 'first draft').waitFor();
  await runFinished(page);
  const original = await sessionID(page);
  const before = (await chatRequests(fake)).length;

  await fake.enqueue({ kind: 'text', text: 'A haiku, second draft.' });
  await reply(page, 'first draft').getByRole('button', { name: 'Regenerate' }).click();
  await switched(page, original);
  await reply(page, 'second draft').waitFor();
  await runFinished(page);
  const reqs = await chatRequests(fake);
  assert.equal(reqs.length, before + 1);
  assert.deepEqual(userTexts(reqs.at(-1)), ['write a haiku'], 'the message is sent once, not twice');
  const versions = reply(page, 'second draft').getByRole('group', { name: 'Versions' });
  await versions.getByText('2 / 2').waitFor();
  await docShot(page, 'controls-versions');

  await versions.getByRole('button', { name: 'Previous version' }).click();
  await until('the first version to open', async () => (await sessionID(page)) === original);
  await reply(page, 'first draft').getByText('1 / 2').waitFor();
  assert.deepEqual(browser.consoleErrors, []);
});

test('Retry after a provider error runs again without sending the message twice', async () => {
  const { page } = browser;
  await newSession(page);
  const err = { kind: 'http_error', status: 500, body: '{"error":{"message":"the model is overloaded","type":"server_error"}}' };
  await fake.enqueue(err, err, err, err); // the window's client tries four times (MaxRetries 3)
  await sendMessage(page, 'hello there');
  await page.getByRole('alert').filter({ hasText: 'overloaded' }).waitFor().catch(async (e) => {
    await shot(page, 'failed-retry');
    throw e;
  });
  await runFinished(page);
  await docShot(page, 'controls-retry');
  await fake.enqueue({ kind: 'text', text: 'Hello! Sorry for the wait.' });
  await page.getByRole('button', { name: 'Retry' }).click();
  await reply(page, 'Sorry for the wait').waitFor();
  await runFinished(page);
  assert.deepEqual(userTexts((await chatRequests(fake)).at(-1)), ['hello there']);
  assert.equal(await you(page, 'hello there').count(), 1, 'the message is shown once');
  assert.equal(await page.getByRole('button', { name: 'Retry' }).count(), 0, 'no Retry after a completed run');
});

test('Ctrl+F finds in the session with counts; Enter, Shift+Enter and Esc', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue({ kind: 'text', text: 'Apples are red. Green apples exist too. I like apples.' });
  await sendMessage(page, 'tell me about apples');
  await reply(page, 'I like apples').waitFor();
  await runFinished(page);
  await page.getByRole('region', { name: 'Conversation' }).click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Control+f');
  const find = page.getByRole('textbox', { name: 'Find in session' });
  await find.waitFor();
  await find.fill('APPLES');
  const count = page.getByRole('status', { name: 'Matches' });
  await until('4 matches', async () => (await count.textContent()) === '1 of 4');
  await find.press('Enter');
  await until('the second match', async () => (await count.textContent()) === '2 of 4');
  await find.press('Shift+Enter');
  await find.press('Shift+Enter');
  await until('wrapped to the last match', async () => (await count.textContent()) === '4 of 4');
  await docShot(page, 'controls-find');
  await find.fill('no such words');
  await until('no matches', async () => (await count.textContent()) === 'No matches');
  await find.press('Escape');
  await find.waitFor({ state: 'detached' });
});

test('Copy code and a tool card Copy put the text on the clipboard', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue({ kind: 'text', text: 'Run this:\n\n```sh\ngo test ./...\n```\n' });
  await sendMessage(page, 'how do I test?');
  await reply(page, 'Run this').waitFor();
  await runFinished(page);
  await reply(page, 'Run this').getByRole('button', { name: 'Copy code' }).click();
  await until('the code on the clipboard', async () => (await page.evaluate(() => navigator.clipboard.readText())).trim() === 'go test ./...');

  await fake.enqueue(
    { kind: 'text', text: 'Listing.', calls: [{ id: 'call_c', name: 'run_shell_command', arguments: JSON.stringify({ command: 'ls -la' }) }] },
    { kind: 'text', text: 'Not listed then.' },
  );
  await sendMessage(page, 'list the files');
  const card = page.getByRole('region', { name: 'Tool call run_shell_command' });
  await card.getByRole('button', { name: 'Copy', exact: true }).click();
  await until('the command on the clipboard', async () => (await page.evaluate(() => navigator.clipboard.readText())) === 'ls -la');
  await card.getByRole('button', { name: 'Deny', exact: true }).click();
  await reply(page, 'Not listed then.').waitFor();
  await runFinished(page);
  await reply(page, 'Not listed then.').getByRole('button', { name: 'Copy message' }).click();
  await until('the message on the clipboard', async () => (await page.evaluate(() => navigator.clipboard.readText())) === 'Not listed then.');
});

test('Esc stops the running run; Alt+Up and Alt+Down move between sessions', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue({ kind: 'text', text: 'A very long answer that stalls here', stall_after: 2, stall_ms: 60000 });
  await sendMessage(page, 'take your time');
  await page.getByRole('button', { name: 'Stop' }).waitFor();
  await page.getByRole('article', { name: 'Assistant reply (streaming)' }).getByText('A very').waitFor();
  // Esc stops the run wherever the focus is, the message box included.
  await page.getByRole('textbox', { name: 'Message' }).press('Escape');
  await runFinished(page);
  await page.getByRole('button', { name: 'Retry' }).waitFor(); // an interrupted run can be run again

  const here = await sessionID(page);
  await page.keyboard.press('Alt+ArrowDown');
  const next = await switched(page, here);
  await page.keyboard.press('Alt+ArrowUp');
  await until('back to the first session', async () => (await sessionID(page)) === here);
  assert.notEqual(next, here);
  // `?` is a shortcut only where it is not text: out of the message box first.
  await page.getByRole('region', { name: 'Conversation' }).click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('?');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  for (const does of ['Find in the session', 'Previous session', 'Next session', 'stop the running reply']) await sheet.getByText(does, { exact: false }).waitFor();
  await docShot(page, 'controls-shortcuts');
  await page.keyboard.press('Escape');
  await sheet.waitFor({ state: 'detached' });
  assert.equal(await page.getByRole('button', { name: 'Stop' }).count(), 0);
  assert.deepEqual(browser.consoleErrors, []);
});

test('an image attached and one pasted are stored with the message, shown, and sent to the model as image_url parts', async () => {
  const { page } = browser;
  await newSession(page);
  // A real 64x48 PNG, made by the page itself.
  const png = await page.evaluate(async () => {
    const c = document.createElement('canvas');
    c.width = 64;
    c.height = 48;
    const g = c.getContext('2d');
    g.fillStyle = '#3a7';
    g.fillRect(0, 0, 64, 48);
    return c.toDataURL('image/png').split(',')[1];
  });
  await page.getByLabel('Attach image').setInputFiles({ name: 'green.png', mimeType: 'image/png', buffer: Buffer.from(png, 'base64') });
  const attached = page.getByRole('list', { name: 'Attached images' });
  await attached.getByRole('img', { name: 'green.png' }).waitFor();
  await page.getByRole('textbox', { name: 'Message' }).evaluate((el, b64) => {
    const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, png);
  await attached.getByRole('img', { name: 'pasted.png' }).waitFor();
  await docShot(page, 'controls-attached-images');
  await fake.enqueue({ kind: 'text', text: 'Two green rectangles.' });
  await sendMessage(page, 'what are these?');
  await reply(page, 'Two green rectangles.').waitFor();
  await runFinished(page);
  const shown = you(page, 'what are these?').getByRole('list', { name: 'Images' });
  await shown.getByRole('img', { name: 'green.png' }).waitFor();
  await shown.getByRole('img', { name: 'pasted.png' }).waitFor();
  await until('both thumbnails loaded', async () =>
    (await shown.locator('img').evaluateAll((imgs) => imgs.filter((i) => i.complete && i.naturalWidth === 64).length)) === 2);
  assert.equal(await attached.count(), 0, 'the box is empty after sending');
  // The request carries the text and both images as image_url parts: PNG data URLs that
  // decode to the 64x48 image (within the limits, so sent as stored).
  const last = (await chatRequests(fake)).at(-1).messages.at(-1);
  assert.equal(last.role, 'user');
  assert.deepEqual(last.content[0], { type: 'text', text: 'what are these?' });
  const urls = last.content.slice(1).map((p) => (assert.equal(p.type, 'image_url'), p.image_url.url));
  assert.equal(urls.length, 2);
  for (const url of urls) {
    assert.ok(url.startsWith('data:image/png;base64,'), url.slice(0, 40));
    const bytes = Buffer.from(url.split(',')[1], 'base64');
    assert.equal(bytes.readUInt32BE(16), 64, 'width');
    assert.equal(bytes.readUInt32BE(20), 48, 'height');
  }
  assert.deepEqual(browser.consoleErrors, []);
});

test('a text-only model: the attached image is kept, and a note says it is not sent', async () => {
  const { page } = browser;
  await editSettings(page, (p) => p.getByLabel('Model').fill('gpt-3.5-turbo'));
  await newSession(page);
  const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'); // 1x1 GIF
  await page.getByLabel('Attach image').setInputFiles({ name: 'dot.gif', mimeType: 'image/gif', buffer: gif });
  await page.getByRole('list', { name: 'Attached images' }).getByRole('img', { name: 'dot.gif' }).waitFor();
  await page.getByRole('note').filter({ hasText: 'text-only' }).waitFor();
  await docShot(page, 'controls-text-only');
  // The note follows the open session's own model: this session keeps gpt-3.5-turbo when the
  // saved default changes, and loses the note when its header chooses a model that sees images.
  await editSettings(page, (p) => p.getByLabel('Model').fill('fake-model'));
  await page.getByLabel('Attach image').setInputFiles({ name: 'dot.gif', mimeType: 'image/gif', buffer: gif });
  await page.getByRole('list', { name: 'Attached images' }).getByRole('img', { name: 'dot.gif' }).first().waitFor();
  await page.getByRole('note').filter({ hasText: 'text-only' }).waitFor();
  await page.getByRole('button', { name: /Provider and model of the next run: default · gpt-3.5-turbo/ }).click();
  await page.getByRole('combobox', { name: 'Session model' }).fill('fake-model');
  await page.getByRole('button', { name: 'Use for the next run' }).click();
  await page.getByRole('button', { name: /Provider and model of the next run: default · fake-model/ }).waitFor();
  await page.getByRole('note').filter({ hasText: 'text-only' }).waitFor({ state: 'detached' });
  assert.deepEqual(browser.consoleErrors, []);
});
