// The smallest window (760x480, main.go) and the keyboard: the conversation keeps at least
// half the height, the folded panel's tabs and "+ New" read whole, the shortcuts sheet opens
// on its title, Settings scrolls inside its own area; a waiting call is reached and decided
// from the message box by keyboard alone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newSession, runFinished, sendMessage, shot, startAll, until } from '../harness.mjs';

let fake, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, browser } = env);
});

after(async () => {
  await browser?.page.setViewportSize({ width: 1280, height: 800 }).catch(() => {});
  await env?.stop();
});

const assistant = (page, text) => page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: text });

/** What the small window gives each part, measured in the page. */
function measureSmall(page) {
  return page.evaluate(() => {
    const r = (el) => (el ? el.getBoundingClientRect() : null);
    const tabs = [...document.querySelectorAll('aside.side [role="tab"]')].map((t) => ({ name: t.textContent, cut: t.scrollHeight > t.clientHeight + 1 || t.scrollWidth > t.clientWidth + 1 }));
    const nw = document.querySelector('button[aria-label="New session"]');
    return {
      conversation: r(document.querySelector('section.conversation'))?.height ?? 0,
      tabs,
      newHeight: nw ? nw.getBoundingClientRect().height : 0,
      newLine: nw ? parseFloat(getComputedStyle(nw).lineHeight) : 0,
      scrolls: document.scrollingElement.scrollHeight > window.innerHeight + 1,
    };
  });
}

test('at 760x480 the conversation keeps half the height; tabs and + New read whole; the sheet opens on its title', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue({ kind: 'text', text: 'A short answer.' });
  await sendMessage(page, 'hello small window');
  await assistant(page, 'A short answer.').waitFor();
  await runFinished(page);
  await page.setViewportSize({ width: 760, height: 480 });
  try {
    await small(page);
  } finally {
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

async function small(page) {
  await until('the side panel to fold', async () => (await page.locator('aside.side.collapsed').count()) === 1);
  const m = await measureSmall(page);
  await shot(page, 'ui-small-760x480');
  assert.ok(m.conversation >= 240, `the conversation has ${m.conversation}px of 480`);
  for (const t of m.tabs) assert.ok(!t.cut, `the folded tab "${t.name}" is cut`);
  assert.ok(m.newHeight < m.newLine * 2, `"+ New" wraps (${m.newHeight}px high, line ${m.newLine}px)`);
  assert.ok(!m.scrolls, 'the window itself scrolls');

  await page.locator('section.conversation').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('?');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await sheet.waitFor();
  const title = await page.evaluate(() => {
    const d = document.querySelector('[role="dialog"].sheet');
    const h = d.querySelector('h2').getBoundingClientRect();
    const b = d.getBoundingClientRect();
    return { top: h.top - b.top, scrolled: d.scrollTop };
  });
  await shot(page, 'ui-small-shortcuts');
  assert.equal(title.scrolled, 0, 'the sheet opens scrolled');
  assert.ok(title.top >= 0, 'the title is above the sheet top');
}

test('Settings scrolls in its own area; the session list and the Save bar stay put', async () => {
  const { page } = browser;
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  const area = page.getByRole('region', { name: 'Section contents' });
  await area.waitFor();
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Providers' }).click();
  const saveProviders = page.getByRole('button', { name: 'Save providers' });
  await saveProviders.scrollIntoViewIfNeeded();
  const m = await page.evaluate(() => {
    const box = (s) => document.querySelector(s).getBoundingClientRect();
    const save = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Save providers').getBoundingClientRect();
    return { scrolls: document.scrollingElement.scrollHeight > window.innerHeight + 1, sessions: box('nav.sessions'), bar: box('.settings-actions'), save, area: box('.settings-body') };
  });
  await shot(page, 'ui-small-settings');
  assert.ok(!m.scrolls, 'the window scrolls');
  assert.ok(m.sessions.top >= 0 && m.sessions.bottom <= 800.5, 'the session list is on screen');
  assert.ok(m.bar.bottom <= 800.5, 'the Save bar is on screen');
  assert.ok(m.save.bottom <= m.bar.top + 0.5 && m.save.top >= m.area.top - 0.5, `Save providers is hidden (${JSON.stringify(m.save)} under ${JSON.stringify(m.bar)})`);
  await page.getByRole('button', { name: 'Close', exact: true }).click();
});

test('from the message box to the waiting call and back by keyboard', async () => {
  const { page } = browser;
  await fake.enqueue(
    { kind: 'text', text: 'I will write it.', calls: [{ id: 'call_k', name: 'write_file', arguments: JSON.stringify({ path: 'k.md', content: 'keys\n' }) }] },
    { kind: 'text', text: 'Written by keyboard.' },
  );
  await sendMessage(page, 'write k.md');
  const card = page.getByRole('region', { name: 'Tool call write_file' });
  await card.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  await page.getByRole('textbox', { name: 'Message' }).focus();
  await page.keyboard.press('Control+j');
  await until('the card to have the focus', () => card.evaluate((el) => document.activeElement === el));
  assert.ok(await card.isVisible());
  // A button inside the card has the focus: y still decides.
  await page.keyboard.press('Tab');
  assert.ok(await card.evaluate((el) => el.contains(document.activeElement) && document.activeElement !== el && document.activeElement.tagName === 'BUTTON'));
  await page.keyboard.press('y');
  await assistant(page, 'Written by keyboard.').waitFor();
  await runFinished(page);
  await page.keyboard.press('Control+l');
  assert.ok(await page.getByRole('textbox', { name: 'Message' }).evaluate((el) => document.activeElement === el));
  assert.deepEqual(browser.consoleErrors, []);
});
