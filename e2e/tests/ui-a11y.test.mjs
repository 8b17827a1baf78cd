// Accessibility of every main view, in the light and the dark theme, checked by axe-core
// (pinned in e2e/package.json) with its default rules: no violation of impact serious or
// critical. The views: the first screen, Settings, a conversation with a pending approval
// (with its reason and edit forms), the inbox, the side panel's tabs (budget, chunk table,
// workspace, changes), the "/" palette, the find bar, and each dialog.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { OUT, ROOT, runFinished, sendMessage, shot, startAll, until } from '../harness.mjs';

const AXE = readFileSync(join(ROOT, 'e2e', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const THEMES = ['light', 'dark'];

let env;
// Every serious or critical violation found, by view and theme; the test fails on any.
const found = [];

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'a11y-axe.json'), JSON.stringify(found, null, 2));
  await env?.stop();
});

/** Resolves once the page has painted twice (what just changed has reached the screen). */
const painted = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** axe-core's serious and critical violations on the whole page, each node with what failed. */
const axe = (page) =>
  page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`) }));
  });

/** Runs axe on the whole page in both themes; records what it finds under view. */
async function check(page, view) {
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
    await painted(page);
    // Evaluated through the DevTools protocol: the page's CSP (script-src 'self') refuses an inline <script>.
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
    // A control caught mid-update (a button just enabled, not yet repainted) is not a finding:
    // only what a second run after the next paint finds again counts.
    let violations = await axe(page);
    if (violations.length > 0) {
      await painted(page);
      const again = new Set((await axe(page)).flatMap((v) => v.nodes.map((n) => `${v.id} ${n}`)));
      violations = violations.map((v) => ({ ...v, nodes: v.nodes.filter((n) => again.has(`${v.id} ${n}`)) })).filter((v) => v.nodes.length > 0);
    }
    for (const v of violations) found.push({ view, theme, ...v });
    await shot(page, `a11y-${view.replace(/\W+/g, '-')}-${theme}`);
  }
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
}

const card = (page, tool) => page.getByRole('region', { name: `Tool call ${tool}` });

test('every main view and dialog, light and dark: no serious or critical axe violation', async () => {
  const { page } = env.browser;
  await check(page, 'first screen');

  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('region', { name: 'Settings' }).waitFor();
  await check(page, 'settings');
  await page.getByRole('button', { name: 'Close', exact: true }).click();

  await env.fake.enqueue(
    {
      kind: 'text',
      text: 'I will **write** the file and look around. See [the docs](https://example.com/docs).',
      calls: [
        { id: 'call_w', name: 'write_file', arguments: JSON.stringify({ path: 'hello.txt', content: 'hello\nworld\n' }) },
        { id: 'call_s', name: 'run_shell_command', arguments: JSON.stringify({ command: 'ls -la' }) },
      ],
    },
    { kind: 'text', text: 'Done: `hello.txt` written.\n\n```js\nconsole.log("hi")\n```' },
  );
  await sendMessage(page, 'write hello.txt please');
  const shell = card(page, 'run_shell_command');
  await shell.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  await card(page, 'write_file').getByRole('button', { name: 'Approve', exact: true }).waitFor();
  await check(page, 'pending approval');

  await shell.getByRole('button', { name: 'Deny with reason' }).click();
  await shell.getByRole('textbox', { name: 'Reason' }).waitFor();
  await check(page, 'deny with reason');
  await shell.getByRole('button', { name: 'Deny with reason' }).click();
  await shell.getByRole('button', { name: 'Edit arguments' }).click();
  await check(page, 'edit arguments');
  await shell.getByRole('button', { name: 'Cancel' }).click();

  await shell.getByRole('button', { name: 'Always allow' }).click();
  await page.getByRole('dialog', { name: 'Always allow rule' }).waitFor();
  await check(page, 'dialog always allow');
  await page.getByRole('dialog', { name: 'Always allow rule' }).getByRole('button', { name: 'Cancel' }).click();

  await page.keyboard.press('Control+i');
  await page.getByRole('main', { name: 'Inbox' }).waitFor();
  await check(page, 'inbox');
  await page.keyboard.press('Control+i');
  await page.getByRole('main', { name: 'Inbox' }).waitFor({ state: 'detached' });

  await card(page, 'write_file').getByRole('button', { name: 'Approve', exact: true }).click();
  await shell.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'written.' }).waitFor();
  await runFinished(page);
  await check(page, 'conversation');

  await card(page, 'write_file').getByRole('button', { name: 'Restore files to before this row' }).click();
  await page.getByRole('dialog', { name: 'Restore files' }).getByRole('list', { name: 'Files to restore' }).waitFor();
  await check(page, 'dialog restore files');
  await page.getByRole('dialog', { name: 'Restore files' }).getByRole('button', { name: 'Cancel' }).click();

  for (const tab of ['Chunks', 'Workspace', 'Changes', 'Budget']) {
    await page.getByRole('tab', { name: tab }).click();
    await until(`the ${tab} tab selected`, async () => (await page.getByRole('tab', { name: tab }).getAttribute('aria-selected')) === 'true');
    await check(page, `tab ${tab}`);
  }

  await page.getByRole('textbox', { name: 'Message' }).fill('/');
  await page.getByRole('listbox', { name: 'Commands and skills' }).waitFor();
  await check(page, 'palette');
  await page.getByRole('textbox', { name: 'Message' }).fill('');

  await page.keyboard.press('Control+f');
  await page.getByRole('textbox', { name: 'Find in session' }).fill('hello');
  await check(page, 'find bar');
  await page.getByRole('textbox', { name: 'Find in session' }).press('Escape');

  await page.getByRole('button', { name: 'Approval report' }).click();
  await page.getByRole('dialog', { name: 'Approvals in every session' }).waitFor();
  await check(page, 'dialog approval report');
  await page.keyboard.press('Escape');

  await page.getByRole('region', { name: 'Conversation' }).click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('?');
  await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
  await check(page, 'dialog shortcuts');
  await page.keyboard.press('Escape');

  await page.getByRole('button', { name: 'Delete', exact: true }).first().click();
  await page.getByRole('alertdialog').waitFor();
  await check(page, 'dialog delete session');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click();

  // The minimum window: the side panel folded to its tabs, then open over the conversation.
  await page.setViewportSize({ width: 760, height: 480 });
  await check(page, 'minimum window');
  await page.getByRole('tab', { name: 'Chunks' }).click();
  await page.getByRole('button', { name: 'Close side panel' }).waitFor();
  await check(page, 'minimum window drawer');
  await page.getByRole('button', { name: 'Close side panel' }).click();
  await page.setViewportSize({ width: 1280, height: 800 });

  assert.deepEqual(found, [], `axe found ${found.length} serious or critical violations (all in build/e2e/a11y-axe.json)`);
  assert.deepEqual(env.browser.consoleErrors, []);
});

test('at 200 % zoom at the default window size the conversation, the message box and the tabs stay usable', async () => {
  const { page } = env.browser;
  for (let i = 0; i < 12; i++) await page.keyboard.press('Control+=');
  // Zoom is the page's own CSS zoom, 50-200 %: twelve steps reach the top.
  await until('the page at 200 %', async () => (await page.evaluate(() => document.documentElement.style.zoom)) === '2');
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
    await painted(page);
    await shot(page, `a11y-zoom-200-${theme}`);
  }
  // What the window shows at 1280x800, without scrolling the page: each control inside it.
  const fits = (loc) => loc.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth + 1 && r.top >= 0 && r.bottom <= window.innerHeight + 1;
  });
  const box = page.getByRole('textbox', { name: 'Message' });
  assert.ok(await fits(box), 'the message box is in the window');
  assert.ok(await fits(page.getByRole('button', { name: 'Send', exact: true })), 'Send is in the window');
  assert.ok(await fits(page.getByRole('tab', { name: 'Chunks' })), 'the Chunks tab is in the window');
  // The conversation keeps a readable column (the side panel folded to its tabs beside it).
  const conversation = await page.getByRole('region', { name: 'Conversation' }).boundingBox();
  assert.ok(conversation && conversation.width >= 500 && conversation.x + conversation.width <= 1281, `the conversation's column at 200 %: ${JSON.stringify(conversation)}`);
  await page.getByRole('article', { name: 'Assistant', exact: true }).last().getByText('written.').waitFor();
  await box.focus();
  await page.keyboard.press('Control+0');
});
