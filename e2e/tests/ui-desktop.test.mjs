// Desktop behaviour in the page against the real Go backend: the keyboard shortcuts and
// their sheet, links in replies going to the system browser, and the window remembering
// the side panel's width, the zoom and the open session across a restart.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { docShot, runFinished, sendMessage, startAll, until } from '../harness.mjs';

let env;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

const assistant = (page, text) => page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: text });
const sessionID = (page) => page.locator('main[data-session-id]').getAttribute('data-session-id');
const zoom = (page) => page.evaluate(() => document.documentElement.style.getPropertyValue('zoom'));

test('shortcuts: Ctrl+N, Ctrl+K, Ctrl+=, Ctrl+-, Ctrl+, and the ? sheet (not while typing)', async () => {
  const { page } = env.browser;
  await sendMessage(page, 'first session');
  await assistant(page, 'You said: first session').waitFor();
  await runFinished(page);
  const first = await sessionID(page);

  await page.locator('body').click({ position: { x: 600, y: 300 } });
  await page.keyboard.press('Control+n');
  await until('Ctrl+N to open a new session', async () => (await sessionID(page)) !== first);

  await page.keyboard.press('Control+k');
  await until('Ctrl+K to focus the search box', () =>
    page.evaluate(() => document.activeElement?.getAttribute('aria-label') === 'Search sessions'),
  );

  // ? typed in the message box is a question mark.
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.click();
  await page.keyboard.type('why?');
  assert.equal(await box.inputValue(), 'why?');
  assert.equal(await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).count(), 0);
  await box.fill('');

  // Elsewhere it opens the sheet.
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('Shift+?');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await sheet.waitFor();
  for (const does of ['New session', 'Search sessions', 'Settings', 'Zoom in', 'Zoom out']) {
    await sheet.getByText(does, { exact: true }).waitFor();
  }
  await docShot(page, 'ui-shortcuts');
  await page.keyboard.press('Escape');
  await until('the sheet to close', async () => (await sheet.count()) === 0);

  await page.keyboard.press('Control+=');
  await page.keyboard.press('Control+=');
  await page.keyboard.press('Control+-');
  assert.equal(await zoom(page), '1.1');

  await page.keyboard.press('Control+,');
  await page.getByRole('region', { name: 'Settings' }).waitFor();
  await page.getByRole('checkbox', { name: /Desktop notifications/ }).waitFor();
  await page.getByRole('button', { name: 'Close' }).click();
  assert.deepEqual(env.browser.consoleErrors, []);
});

test('a link in a reply opens in the system browser, never in the window', async () => {
  const { page } = env.browser;
  await sendMessage(page, 'read https://example.com/docs please');
  const link = assistant(page, 'You said: read').getByRole('link', { name: 'https://example.com/docs' });
  await link.waitFor();
  await runFinished(page);
  // Wails' runtime hands the address to Go (xdg-open); record it instead of opening a browser here.
  await page.evaluate(() => {
    window.__opened = [];
    window.runtime.BrowserOpenURL = (u) => window.__opened.push(u);
  });
  const before = page.url();
  await link.click();
  assert.deepEqual(await page.evaluate(() => window.__opened), ['https://example.com/docs']);
  assert.equal(page.url(), before);
  assert.equal(page.context().pages().length, 1);
});

test('the panel width, the zoom and the open session survive a restart', async () => {
  const { page } = env.browser;
  await sendMessage(page, 'come back to me');
  await assistant(page, 'You said: come back to me').waitFor();
  await runFinished(page);
  const open = await sessionID(page);
  const handle = page.getByRole('separator', { name: 'Resize side panel' });
  await handle.focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await handle.getAttribute('aria-valuenow'), '480');
  // Saved debounced, then the app goes away and comes back.
  await until('the state to be saved', async () => {
    const s = await page.evaluate(() => window.go.desktop.Window.UIState());
    return s.panel_width === 480 && s.last_session === open && s.zoom === 1.1;
  });
  const app = await env.restart();
  await page.goto(app.url);
  await assistant(page, 'You said: come back to me').waitFor();
  assert.equal(await sessionID(page), open);
  assert.equal(await page.getByRole('separator', { name: 'Resize side panel' }).getAttribute('aria-valuenow'), '480');
  assert.equal(await zoom(page), '1.1');
  assert.deepEqual(env.browser.consoleErrors, []);
});
