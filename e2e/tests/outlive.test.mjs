// Runs outlive the window, in the real window (WebKitGTK under Xvfb, driven through the dev
// server's page): a run waits for approval while Ctrl+Shift+Enter starts a second session and
// the person stays; the window's own close button (WM_DELETE_WINDOW, as a window manager sends
// it) asks "2 runs are going"; Keep hides the window while the process and its runs go on; a
// second launch of the binary on the same database shows it again; the first run is answered
// and finishes; Ctrl+Q quits, and the run still going is stored as stopped.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { OUT, ROOT, configure, docShot, launchBrowser, makeHome, startApp, startFake, until } from '../harness.mjs';

// Sends WM_DELETE_WINDOW to a window: what the close button of a window manager does.
const WMCLOSE_C = `#include <X11/Xlib.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  Display *d = XOpenDisplay(NULL);
  if (!d || argc < 2) return 2;
  Window w = (Window)strtoul(argv[1], NULL, 0);
  XEvent e = {0};
  e.xclient.type = ClientMessage;
  e.xclient.window = w;
  e.xclient.message_type = XInternAtom(d, "WM_PROTOCOLS", False);
  e.xclient.format = 32;
  e.xclient.data.l[0] = XInternAtom(d, "WM_DELETE_WINDOW", False);
  e.xclient.data.l[1] = CurrentTime;
  XSendEvent(d, w, False, NoEventMask, &e);
  XSync(d, False);
  XCloseDisplay(d);
  return 0;
}
`;

let fake, home, app, browser, dbus, busAddress, wmclose;

/** A private session bus: the single-instance lock and the second launch's hand-off use it. */
async function startBus() {
  const proc = spawn('dbus-daemon', ['--session', '--nofork', '--nopidfile', '--print-address=1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const address = await new Promise((res, rej) => {
    let buf = '';
    proc.stdout.on('data', (d) => {
      buf += d;
      const line = buf.split('\n')[0];
      if (buf.includes('\n')) res(line.trim());
    });
    proc.once('exit', (c) => rej(new Error(`dbus-daemon exited with ${c}`)));
  });
  return { proc, address };
}

/** The app's main X window (the largest window with its pid), and whether it is mapped. */
function appWindow(pid) {
  const ids = execFileSync('xdotool', ['search', '--pid', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  let best = null;
  for (const id of ids) {
    const info = execFileSync('xwininfo', ['-id', id], { encoding: 'utf8' });
    const width = Number(info.match(/Width: (\d+)/)?.[1] ?? 0);
    if (!best || width > best.width) best = { id, width, state: info.match(/Map State: (\w+)/)?.[1] };
  }
  return best;
}

const mapState = (pid) => appWindow(pid)?.state;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmclose-'));
  writeFileSync(join(dir, 'wmclose.c'), WMCLOSE_C);
  wmclose = join(dir, 'wmclose');
  execFileSync('cc', ['-o', wmclose, join(dir, 'wmclose.c'), '-lX11']);
  ({ proc: dbus, address: busAddress } = await startBus());
  fake = await startFake();
  home = makeHome();
  app = await startApp(home, { DBUS_SESSION_BUS_ADDRESS: busAddress });
  browser = await launchBrowser();
  await browser.page.goto(app.url);
  await configure(browser.page, fake.url);
  await browser.page.getByRole('button', { name: 'Close' }).click();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await fake?.stop();
  dbus?.kill();
  home?.cleanup();
});

const waitingCall = (id, command) => ({ kind: 'text', text: '', calls: [{ id, name: 'run_shell_command', arguments: JSON.stringify({ command }) }] });
const chatCount = async () => (await fake.requests()).filter((r) => r.path.endsWith('/chat/completions')).length;
const openID = (page) => page.locator('main[data-session-id]').getAttribute('data-session-id');

test('a kept run goes on without the window, a second launch brings it back, Ctrl+Q stops what still runs', async () => {
  const { page } = browser;
  const box = page.getByRole('textbox', { name: 'Message' });

  // The first session: its run waits for approval.
  await fake.enqueue(waitingCall('call_a', 'echo first'));
  await box.fill('first task');
  await box.press('Enter');
  const cardA = page.getByRole('region', { name: 'Tool call run_shell_command' });
  await cardA.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  const first = await openID(page);

  // A second task in the background: the send menu offers it; Ctrl+Shift+Enter does it.
  await fake.enqueue(waitingCall('call_b', 'echo second'));
  await box.fill('second task');
  await page.getByRole('button', { name: 'More ways to send' }).click();
  await page.getByRole('menuitem', { name: /Run in a new session/ }).waitFor();
  await docShot(page, 'ui-send-menu');
  await page.keyboard.press('Escape');
  await box.press('Control+Shift+Enter');
  await page.getByRole('status').filter({ hasText: 'Started in a new session: second task' }).waitFor();
  assert.equal(await openID(page), first, 'the person stays in the session they were in');
  assert.equal(await box.inputValue(), '');
  const list = page.getByRole('navigation', { name: 'Sessions' });
  await list.getByRole('button', { name: /second task/ }).waitFor();
  await until('the second session to ask the model', async () => (await chatCount()) === 2);

  // The window's close button: the question, in the page.
  const win = appWindow(app.proc.pid);
  assert.equal(win.state, 'IsViewable');
  execFileSync(wmclose, [win.id]);
  const dialog = page.getByRole('dialog', { name: '2 runs are going' });
  await dialog.waitFor();
  await docShot(page, 'ui-close-dialog');
  await dialog.getByRole('button', { name: 'Keep them running' }).click();
  await until('the window to hide', async () => mapState(app.proc.pid) === 'IsUnMapped');
  assert.equal(app.proc.exitCode, null, 'the process goes on without its window');

  // Launching Loopdesk again, on the same database: that launch hands over and the window is back.
  const second = spawn(join(ROOT, 'build', 'bin', 'loopdesk-dev'), [], {
    env: { ...process.env, LOOPDESK_DB: home.db, XDG_CONFIG_HOME: home.config, XDG_DATA_HOME: home.dir, DBUS_SESSION_BUS_ADDRESS: busAddress },
    stdio: 'ignore',
  });
  const code = await new Promise((res) => second.once('exit', res));
  assert.equal(code, 0, 'the second launch hands over to the running window and exits');
  await until('the window to show again', async () => mapState(app.proc.pid) === 'IsViewable');
  // The real window as it came back (looked at, not asserted: its page is WebKit's, not this browser's).
  mkdirSync(OUT, { recursive: true });
  execFileSync('import', ['-window', appWindow(app.proc.pid).id, join(OUT, 'outlive-window-back.png')]);

  // The first run was waiting all along: answered now, it finishes.
  await fake.enqueue({ kind: 'text', text: 'First task done.' });
  await cardA.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'First task done.' }).waitFor();

  // Ctrl+Q quits at once; the second session's run, still waiting, is stopped as Stop does.
  const exited = new Promise((res) => app.proc.once('exit', (c, s) => res(c ?? s)));
  await page.keyboard.press('Control+q');
  assert.equal(await exited, 0);
  await app.stop(); // its WebKit processes too
  app = await startApp(home, { DBUS_SESSION_BUS_ADDRESS: busAddress });
  await page.goto(app.url);
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /second task/ }).click();
  await page.getByText(/the run was cancelled before this call finished/).first().waitFor();
  await page.getByText('Stopped.').first().waitFor();
  assert.deepEqual(browser.consoleErrors, []);
});
