// Images a provider refuses: against the real Go backend and the fake model told to
// refuse an image the way OpenAI does, the refused image is left out of the context (never
// deleted: it stays on its message, marked with the provider's words), the request is made
// once more without it, and the session goes on. The per-model vision setting in Settings
// decides whether a model is sent images at all.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chatRequests, docShot, editSettings, newSession, runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let fake, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, browser } = env);
});

after(async () => {
  await env?.stop();
});

const you = (page, text) => page.getByRole('article', { name: 'You', exact: true }).filter({ hasText: text });
const reply = (page, text) => page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: text });
const imageParts = (req) => req.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image_url');

/** A w×h PNG drawn by the page; noisy pixels make a big file. */
async function pngOf(page, w, h, noisy) {
  const b64 = await page.evaluate(
    ([w, h, noisy]) => {
      const c = document.createElement('canvas');
      c.width = w;
      c.height = h;
      const g = c.getContext('2d');
      const img = g.createImageData(w, h);
      for (let i = 0; i < img.data.length; i += 4) {
        const v = noisy ? Math.floor(Math.random() * 256) : 120;
        img.data.set([v, 255 - v, 90, 255], i);
      }
      g.putImageData(img, 0, 0);
      return c.toDataURL('image/png').split(',')[1];
    },
    [w, h, noisy],
  );
  return Buffer.from(b64, 'base64');
}

async function refuseImages(reason, minBytes) {
  const r = await fetch(fake.url.replace(/\/v1$/, '/_fake/refuse_images'), { method: 'POST', body: JSON.stringify({ reason, min_bytes: minBytes }) });
  assert.equal(r.status, 204, await r.text());
}

test('a provider refusing an image: the image is excluded and shown so, the request retried once, the session goes on', async () => {
  const { page } = browser;
  await newSession(page);
  const small = await pngOf(page, 64, 48, false);
  const big = await pngOf(page, 300, 200, true);
  assert.ok(small.length < 5000 && big.length > 50000, `${small.length} / ${big.length} bytes`);
  await page.getByLabel('Attach image').setInputFiles({ name: 'small.png', mimeType: 'image/png', buffer: small });
  await page.getByRole('list', { name: 'Attached images' }).getByRole('img', { name: 'small.png' }).waitFor();
  await fake.enqueue({ kind: 'text', text: 'A plain green rectangle.' });
  await sendMessage(page, 'what is this?');
  await reply(page, 'A plain green rectangle.').waitFor();
  await runFinished(page);

  // The server now refuses images over 20 kB, with OpenAI's 400.
  await refuseImages('too_large', 20000);
  const before = (await chatRequests(fake)).length;
  await page.getByLabel('Attach image').setInputFiles({ name: 'noise.png', mimeType: 'image/png', buffer: big });
  await page.getByRole('list', { name: 'Attached images' }).getByRole('img', { name: 'noise.png' }).waitFor();
  await fake.enqueue({ kind: 'text', text: 'I can only see the green one.' });
  await sendMessage(page, 'and this one?');
  await reply(page, 'I can only see the green one.').waitFor();
  await runFinished(page);

  // On the image: excluded, with the provider's words; the row says which image and why.
  const note = you(page, 'and this one?').getByRole('note', { name: 'noise.png excluded from context' });
  await note.waitFor();
  assert.match(await note.textContent(), /^Excluded from context: 400 the server refused an image: You uploaded an unsupported image/);
  assert.equal(await you(page, 'what is this?').getByRole('note').count(), 0, 'the accepted image is not marked');
  const row = page.getByRole('note', { name: 'Image left out' });
  assert.match(await row.textContent(), /Left out of the context: noise\.png\. The provider refused it/);
  await you(page, 'and this one?').getByRole('img', { name: 'noise.png' }).waitFor(); // kept, never deleted
  await docShot(page, 'images-refused');

  // Two requests: the refused one with both images, the retry with the accepted one only.
  const reqs = (await chatRequests(fake)).slice(before);
  assert.equal(reqs.length, 2);
  assert.equal(imageParts(reqs[0]).length, 2);
  assert.equal(imageParts(reqs[1]).length, 1);
  const lastUser = reqs[1].messages.at(-1);
  assert.match(lastUser.content, /^and this one\?\n\n\[loopdesk note: the person attached the image noise\.png here/);

  // The session goes on: the next message needs no retry and carries no refused image.
  await fake.enqueue({ kind: 'text', text: 'Still here.' });
  await sendMessage(page, 'thanks');
  await reply(page, 'Still here.').waitFor();
  await runFinished(page);
  const next = (await chatRequests(fake)).slice(before + 2);
  assert.equal(next.length, 1);
  assert.equal(imageParts(next[0]).length, 1);
  await refuseImages('', 0);
  assert.deepEqual(browser.consoleErrors, []);
});

test('the vision setting: a model set to Off gets no image, and the message box says why', async () => {
  const { page } = browser;
  await editSettings(page, async (p) => {
    await p.getByRole('button', { name: 'Add vision setting' }).click();
    const n = await p.getByRole('table', { name: 'Vision' }).locator('tbody tr').count();
    assert.equal(await p.getByRole('textbox', { name: `Vision model ${n}` }).inputValue(), 'fake-model');
    await p.getByRole('combobox', { name: `Vision ${n}` }).selectOption('off');
    await shot(p, 'images-vision-setting');
  });
  await newSession(page);
  await page.getByLabel('Attach image').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: await pngOf(page, 8, 8, false) });
  await page.getByRole('note').filter({ hasText: 'text-only' }).waitFor();
  await docShot(page, 'images-vision-off');
  await fake.enqueue({ kind: 'text', text: 'No picture reached me.' });
  await sendMessage(page, 'see this?');
  await reply(page, 'No picture reached me.').waitFor();
  await runFinished(page);
  const last = (await chatRequests(fake)).at(-1);
  assert.equal(imageParts(last).length, 0);
  assert.equal(last.messages.at(-1).content, 'see this?');
  // Back to Auto (no entry): the model sees images again.
  await editSettings(page, async (p) => {
    const rows = p.getByRole('table', { name: 'Vision' }).locator('tbody tr');
    for (let n = await rows.count(); n > 0; n--) await p.getByRole('button', { name: `Remove vision setting ${n}` }).click();
  });
  await page.getByRole('note').filter({ hasText: 'text-only' }).waitFor({ state: 'detached' });
  assert.deepEqual(browser.consoleErrors, []);
});
