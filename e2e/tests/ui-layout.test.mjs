// The conversation as a person sees it: their own message stays on screen while a slow
// model thinks; the header's lineage link of a fork is visible and clickable and the title
// takes the room there is, at the default window (1280x800) and at the minimum (760x480,
// main.go), where the side panel folds to its tabs and a tool card still has its controls.
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

const you = (page, text) => page.getByRole('article', { name: 'You' }).filter({ hasText: text });
const assistant = (page, text) => page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: text });

test('the frame index.html paints before the script runs is replaced by the page, not kept beside it', async () => {
  const { page } = browser;
  // The frame is in the page as served (docs/benchmarks.md, "The frame before the script").
  const served = await (await fetch(env.app.url)).text();
  // (Wails' asset server writes the page out again: inert="" for inert.)
  assert.match(served, /<div class="app settings-open shell" aria-hidden="true" inert(="")?>/);
  await page.reload();
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'New session' }).waitFor();
  assert.equal(await page.locator('.shell').count(), 0);
  assert.equal(await page.locator('nav.sessions').count(), 1);
  assert.deepEqual(browser.consoleErrors, []);
});

test('your message stays on screen while a slow model thinks', async () => {
  const { page } = browser;
  // The one word of the answer comes after 2.5 s.
  await fake.enqueue({ kind: 'text', text: 'Here.', delay_ms: 2500 });
  await sendMessage(page, 'are you there, slow model?');
  // With no session open, Send makes one first (the text stays in the box meanwhile).
  await you(page, 'are you there, slow model?').waitFor();
  const t0 = Date.now();
  // Checked again and again until the reply starts: the message never leaves the screen.
  let checks = 0;
  while (Date.now() - t0 < 2000) {
    assert.equal(await you(page, 'are you there, slow model?').count(), 1, `after ${Date.now() - t0} ms`);
    assert.ok(await you(page, 'are you there, slow model?').isVisible());
    checks++;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(checks > 5);
  // The stored row has replaced the pending one by now (Go stores it when the run starts).
  assert.ok(await page.locator('.conversation article.msg.user[data-seq]').filter({ hasText: 'are you there, slow model?' }).count(), 'stored user row shown');
  await assistant(page, 'Here.').waitFor();
  await runFinished(page);
  assert.equal(await you(page, 'are you there, slow model?').count(), 1);
  assert.deepEqual(browser.consoleErrors, []);
});

/** Boxes of the elements the layout checks care about, measured in the page. */
function measure(page) {
  return page.evaluate(() => {
    const box = (el) => {
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height };
    };
    const h1 = document.querySelector('.main-head h1');
    return {
      main: box(document.querySelector('main.main')),
      side: box(document.querySelector('aside.side')),
      title: box(h1),
      titleCut: h1 ? h1.scrollWidth > h1.clientWidth + 1 : false,
      actions: box(document.querySelector('.head-actions')),
      fork: box(document.querySelector('.fork-of')),
      buttons: [...document.querySelectorAll('.main-head button')].map(box),
      conversation: box(document.querySelector('.conversation')),
      box: box(document.querySelector('.message-box')),
    };
  });
}

const inside = (inner, outer) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 && inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;

/** The header holds together: every button inside the conversation column, the fork link whole, the title given the room. */
function checkHeader(m, size) {
  for (const b of m.buttons) assert.ok(inside(b, m.main), `${size}: a header button leaves the conversation column: ${JSON.stringify(b)} vs ${JSON.stringify(m.main)}`);
  assert.ok(m.fork && m.fork.width > 100, `${size}: the lineage link is visible (${JSON.stringify(m.fork)})`);
  assert.ok(inside(m.fork, m.main), `${size}: the lineage link is inside the conversation column`);
  // A title is cut only when nothing is left to give it.
  if (m.titleCut) assert.ok(m.actions.left - m.title.right < 24, `${size}: the title is cut with ${m.actions.left - m.title.right}px to spare`);
  if (m.side) assert.ok(m.side.left >= m.main.right - 0.5, `${size}: the side panel overlaps the conversation`);
}

test('the header, a card and the conversation at 1280x800 and at the minimum window size', async () => {
  const { page } = browser;
  const title = 'Layout check: a session with a long title, long enough to need the room it is given';
  await newSession(page);
  await fake.enqueue({ kind: 'text', text: 'First, the plan.' });
  await sendMessage(page, 'make a plan');
  await assistant(page, 'First, the plan.').waitFor();
  await runFinished(page);
  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByRole('textbox', { name: 'Session title' }).fill(title);
  await page.getByRole('button', { name: 'Save title' }).click();
  await page.getByRole('heading', { name: title }).waitFor();

  // Fork it at its first row, then give the fork a call that waits for approval.
  await page.getByRole('tab', { name: 'Chunks' }).click();
  const row = page.getByRole('table', { name: 'Chunk table' }).getByRole('row').filter({ hasText: 'make a plan' });
  await row.click();
  await row.getByRole('button', { name: 'Fork from here' }).click();
  const link = page.getByRole('button', { name: /forked from Layout check: .* at #1/ });
  await link.waitFor().catch(async (e) => {
    await shot(page, 'failed-layout-fork');
    throw e;
  });
  await page.getByRole('tab', { name: 'Budget' }).click();
  await fake.enqueue(
    { kind: 'text', text: 'I will write the plan down.', calls: [{ id: 'call_p', name: 'write_file', arguments: JSON.stringify({ path: 'plan.md', content: '1. think\n2. do\n' }) }] },
    { kind: 'text', text: 'Written.' },
  );
  await sendMessage(page, 'write it to plan.md');
  const card = page.getByRole('region', { name: 'Tool call write_file' });
  await card.getByRole('button', { name: 'Approve', exact: true }).waitFor();

  // 1280x800: everything side by side.
  let m = await measure(page);
  checkHeader(m, '1280x800');
  assert.ok(m.conversation.width >= 500, `conversation ${m.conversation.width}px wide`);
  assert.ok(await card.getByRole('button', { name: 'Approve', exact: true }).isVisible());
  await shot(page, 'ui-layout-1280x800');

  // 760x480, the minimum: the side panel folds to its tabs, the session list narrows.
  await page.setViewportSize({ width: 760, height: 480 });
  await until('the side panel to fold', async () => (await page.locator('aside.side.collapsed').count()) === 1);
  m = await measure(page);
  checkHeader(m, '760x480');
  assert.ok(m.conversation.width >= 450, `conversation ${m.conversation.width}px wide at 760x480`);
  assert.ok(m.box.bottom <= 480.5, 'the message box is on screen');
  await card.scrollIntoViewIfNeeded();
  const approve = card.getByRole('button', { name: 'Approve', exact: true });
  assert.ok(await approve.isVisible());
  const a = await approve.boundingBox();
  assert.ok(inside({ left: a.x, right: a.x + a.width, top: a.y, bottom: a.y + a.height }, m.main), 'Approve is inside the conversation column');
  await shot(page, 'ui-layout-760x480');

  // A tab opens the panel as a drawer; Close folds it.
  await page.getByRole('tab', { name: 'Chunks' }).click();
  await page.getByRole('table', { name: 'Chunk table' }).waitFor();
  await shot(page, 'ui-layout-760x480-drawer');
  await page.getByRole('button', { name: 'Close side panel' }).click();
  assert.equal(await page.getByRole('table', { name: 'Chunk table' }).count(), 0);

  // The card works here: approve, and the run ends.
  await approve.click();
  await assistant(page, 'Written.').waitFor();
  await runFinished(page);
  // The lineage link opens the parent at the fork point.
  await link.click();
  await page.getByRole('heading', { name: title }).waitFor();
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.deepEqual(browser.consoleErrors, []);
});
