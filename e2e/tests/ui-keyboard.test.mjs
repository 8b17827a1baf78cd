// Keyboard only, no mouse: start a session, approve one call, deny one with a reason, fork from
// a row of the chunk table and stop a streaming reply. After each step the focus is on
// something (never lost to the page's body) and shown; screenshots of the focus rings in both
// themes are in build/e2e (ui-keyboard-*.png).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runFinished, shot, startAll, until } from '../harness.mjs';

let env;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

/** What has the focus: its role-ish tag, accessible label or text, and whether it is the body. */
const focused = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return {
      body: !el || el === document.body,
      tag: el?.tagName.toLowerCase() ?? '',
      role: el?.getAttribute('role') ?? '',
      name: (el?.getAttribute('aria-label') || el?.textContent || '').trim().slice(0, 80),
      outline: el ? getComputedStyle(el).outlineStyle : 'none',
    };
  });

/** Presses Tab (Shift+Tab with back) until want(focused) holds; fails after limit presses. */
async function tabTo(page, what, want, { back = false, limit = 80 } = {}) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    const f = await focused(page);
    if (await want(f)) return f;
  }
  throw new Error(`Tab never reached ${what}`);
}

async function focusKept(page, step) {
  const f = await focused(page);
  assert.equal(f.body, false, `after ${step} the focus is on something, not lost to the page`);
  return f;
}

test('a session started, a call approved, one denied with a reason, a fork and a stop, all from the keyboard', async () => {
  const { page } = env.browser;
  const { fake } = env;
  await page.emulateMedia({ reducedMotion: 'reduce' });

  // Start a session and send a message.
  await page.keyboard.press('Control+n');
  await page.getByRole('heading', { name: 'New session' }).waitFor();
  await page.keyboard.press('Control+l');
  await fake.enqueue(
    {
      kind: 'text',
      text: 'I will write the file and clean up.',
      calls: [
        { id: 'call_w', name: 'write_file', arguments: JSON.stringify({ path: 'hello.txt', content: 'hello\n' }) },
        { id: 'call_s', name: 'run_shell_command', arguments: JSON.stringify({ command: 'rm -rf build' }) },
      ],
    },
    { kind: 'text', text: 'Wrote hello.txt and left build alone.' },
  );
  await page.keyboard.type('write hello.txt please');
  await page.keyboard.press('Enter');

  // Approve the first waiting call: Ctrl+J goes to it, y approves.
  const write = page.locator('[data-call-id="call_w"]');
  const shell = page.locator('[data-call-id="call_s"]');
  await shell.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  await page.keyboard.press('Control+j');
  assert.match((await focused(page)).name, /write_file/);
  await shot(page, 'ui-keyboard-01-card-focused');
  await page.keyboard.press('y');
  await write.getByRole('button', { name: 'Approve', exact: true }).waitFor({ state: 'detached' });
  // The focus walks on to the next waiting call.
  assert.match((await focusKept(page, 'approving')).name, /run_shell_command/);

  // Deny the other with a reason: Tab to "Deny with reason", type, Enter.
  await tabTo(page, 'Deny with reason', (f) => f.name === 'Deny with reason');
  await shot(page, 'ui-keyboard-02-deny-with-reason-focused');
  await page.keyboard.press('Enter');
  assert.equal((await focused(page)).name, 'Reason');
  await page.keyboard.type('never delete build here');
  await page.keyboard.press('Enter');
  await shell.getByText(/Denied by you: “never delete build here”/).waitFor();
  await runFinished(page);
  await write.getByText(/Approved by you/).waitFor();
  await focusKept(page, 'denying');

  // Fork from a row: Tab to the side panel's tabs, → to Chunks, Tab to the row's Fork from here.
  await page.keyboard.press('Control+l');
  const tab = await tabTo(page, 'the side panel tabs', (f) => f.role === 'tab');
  assert.equal(tab.name, 'Budget');
  await page.keyboard.press('ArrowRight');
  assert.equal((await focused(page)).name, 'Chunks');
  await page.getByRole('table', { name: 'Chunk table' }).waitFor();
  const fork = await tabTo(page, "the first row's Fork from here", (f) =>
    page.evaluate(() => document.activeElement?.textContent === 'Fork from here' && document.activeElement.closest('[role="row"]')?.getAttribute('data-seq') === '1'),
  );
  assert.notEqual(fork.outline, 'none', 'the focused Fork from here shows its focus');
  await shot(page, 'ui-keyboard-03-fork-focused');
  const before = await page.locator('main[data-session-id]').getAttribute('data-session-id');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: /forked from .* at #1/ }).waitFor();
  assert.notEqual(await page.locator('main[data-session-id]').getAttribute('data-session-id'), before);

  // Stop a streaming reply with Esc from the message box.
  await fake.enqueue({ kind: 'text', text: 'A very long answer. It stalls here and', stall_after: 6, stall_ms: 60000 });
  await page.keyboard.press('Control+l');
  await page.keyboard.type('take your time');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Stop' }).waitFor();
  await until('the reply streaming in', async () => (await page.getByRole('article', { name: 'Assistant reply (streaming)' }).textContent().catch(() => '')).includes('long answer'));
  assert.equal((await focused(page)).name, 'Message');
  await page.keyboard.press('Escape');
  await runFinished(page);
  await page.getByRole('button', { name: 'Retry' }).waitFor();
  assert.equal((await focused(page)).name, 'Message', 'stopping leaves the focus in the message box');
  assert.deepEqual(env.browser.consoleErrors, []);
});

test('focus rings show in both themes', async () => {
  const { page } = env.browser;
  for (const theme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
    await page.keyboard.press('Control+l');
    const f = await tabTo(page, 'Attach image', (x) => x.name === 'Attach image');
    assert.notEqual(f.outline, 'none');
    await shot(page, `ui-keyboard-focus-ring-${theme}`);
  }
});
