// Test harness: starts the scripted fake model server and the app's dev-server
// build on free loopback ports, and drives Debian's Chromium with playwright-core.
// Every wait is a readiness poll, never a fixed sleep.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Screenshots and figures of a test run: under build/, never tracked.
export const OUT = join(ROOT, 'build', 'e2e');
const BIN = join(ROOT, 'build', 'bin');

// The committed screenshots (README, docs) are refreshed by `make screenshot` alone, which
// sets LOOPDESK_UPDATE_SCREENSHOTS=1; a plain test run must leave a clone's `git status` clean.
export const DOC_SHOTS = join(ROOT, 'docs', 'screenshots');
const UPDATE_DOC_SHOTS = process.env.LOOPDESK_UPDATE_SCREENSHOTS === '1';

/** Each file of docs/screenshots with what shows it was written (size, mtime, inode). */
function docShotsState() {
  if (!existsSync(DOC_SHOTS)) return new Map();
  return new Map(readdirSync(DOC_SHOTS).map((n) => {
    const st = statSync(join(DOC_SHOTS, n));
    return [n, `${st.size}:${st.mtimeMs}:${st.ino}`];
  }));
}

// Every test file imports the harness: it fails when anything in that file wrote under
// docs/screenshots without `make screenshot` asking for it.
const docShotsBefore = docShotsState();
after(() => {
  if (UPDATE_DOC_SHOTS) return;
  const now = docShotsState();
  const written = [...now].filter(([n, v]) => docShotsBefore.get(n) !== v).map(([n]) => n);
  const removed = [...docShotsBefore.keys()].filter((n) => !now.has(n));
  if (written.length + removed.length > 0) {
    throw new Error(`a test wrote under docs/screenshots (only \`make screenshot\` may): ${[...written, ...removed].join(', ')}`);
  }
});

export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** Polls fn until it returns a truthy value or the deadline passes. */
export async function until(what, fn, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function collect(proc, name) {
  const lines = [];
  const keep = (d) => {
    for (const l of String(d).split('\n')) if (l) lines.push(`[${name}] ${l}`);
    if (lines.length > 400) lines.splice(0, lines.length - 400);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  return lines;
}

function stopProcess(proc) {
  return new Promise((res) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return res();
    const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
    proc.once('exit', () => {
      clearTimeout(t);
      res();
    });
    proc.kill('SIGTERM');
  });
}

/** Starts backend/fakeai/cmd/fakeai; resolves once it printed its URL. */
export async function startFake(args = []) {
  const proc = spawn(join(BIN, 'fakeai'), args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const logs = collect(proc, 'fakeai');
  const url = await new Promise((res, rej) => {
    let buf = '';
    proc.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/FAKEAI_URL=(\S+)/);
      if (m) res(m[1]);
    });
    proc.once('exit', (code) => rej(new Error(`fakeai exited with ${code}: ${logs.join('\n')}`)));
  });
  const control = url.replace(/\/v1$/, '/_fake');
  return {
    url,
    logs,
    async enqueue(...replies) {
      const r = await fetch(`${control}/enqueue`, { method: 'POST', body: JSON.stringify(replies) });
      if (!r.ok) throw new Error(`enqueue: ${r.status} ${await r.text()}`);
    },
    /** Queues replies for the conversations whose first user message holds marker (fakeai routes). */
    async enqueueFor(marker, ...replies) {
      const r = await fetch(`${control}/enqueue?for=${encodeURIComponent(marker)}`, { method: 'POST', body: JSON.stringify(replies) });
      if (!r.ok) throw new Error(`enqueue: ${r.status} ${await r.text()}`);
    },
    async requests() {
      return (await fetch(`${control}/requests`)).json();
    },
    /** Per /v1 request: when the fake had its body whole and sent its first byte (server_ms). */
    async timings() {
      return (await fetch(`${control}/timings`)).json();
    },
    stop: () => stopProcess(proc),
  };
}

/** A data dir for one app "installation": database, config and key file. */
export function makeHome() {
  const dir = mkdtempSync(join(tmpdir(), 'loopdesk-e2e-'));
  mkdirSync(join(dir, 'config'), { recursive: true });
  return { dir, db: join(dir, 'loopdesk.db'), config: join(dir, 'config'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts the dev-server build on a free port against home's database. */
export async function startApp(home, env = {}) {
  const port = await freePort();
  const addr = `127.0.0.1:${port}`;
  const childEnv = { ...process.env, LOOPDESK_DB: home.db, XDG_CONFIG_HOME: home.config, XDG_DATA_HOME: home.dir, ...env };
  delete childEnv.OPENAI_API_KEY;
  if (env.OPENAI_API_KEY) childEnv.OPENAI_API_KEY = env.OPENAI_API_KEY;
  // Its own process group: WebKit's network and web processes are its
  // children and write into the data dir (hsts-storage.sqlite, storage/) for
  // a moment after the main process exits, so stopping waits for the group.
  const proc = spawn(join(BIN, 'loopdesk-dev'), ['-assetdir', join(ROOT, 'frontend', 'dist'), '-devserver', addr, '-loglevel', 'Warning'], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.add(proc.pid);
  const logs = collect(proc, 'app');
  let exited = null;
  proc.once('exit', (code, sig) => (exited = `${code ?? sig}`));
  const url = `http://${addr}/`;
  await until(`the app's dev server at ${url}`, async () => {
    if (exited !== null) throw new Error(`the app exited (${exited}):\n${logs.join('\n')}`);
    const r = await fetch(url);
    return r.ok;
  });
  return { url, logs, proc, stop: () => stopGroup(proc) };
}

// Process groups of apps started and not yet gone; killed if the runner exits.
const groups = new Set();
process.once('exit', () => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
  }
});

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    if (e.code === 'ESRCH') return false;
    throw e;
  }
}

/** Stops the app, then waits until no process of its group is left. */
async function stopGroup(proc) {
  await stopProcess(proc);
  const pgid = proc.pid;
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {}
  try {
    await until(`the app's WebKit processes (group ${pgid}) to exit`, async () => !groupAlive(pgid), 5000);
  } catch {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
    await until(`the app's process group ${pgid} to go after SIGKILL`, async () => !groupAlive(pgid), 5000);
  }
  groups.delete(pgid);
}

export async function launchBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'pw-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  // Errors from the app's own code. Wails' browser IPC shim (/wails/ipc.js)
  // throws once on load outside the webview, and its websocket reports the
  // app being restarted; neither is ours.
  const consoleErrors = [];
  page.on('console', (m) => {
    const at = m.location()?.url ?? '';
    if (m.type() !== 'error' || at.includes('/wails/') || /WebSocket connection|reading 'nodes'/.test(m.text())) return;
    consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => {
    if (!String(e.stack).includes('/wails/ipc.js')) consoleErrors.push(String(e.stack ?? e));
  });
  return {
    page,
    consoleErrors,
    async close() {
      await ctx.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function shot(page, name) {
  mkdirSync(OUT, { recursive: true });
  await page.screenshot({ path: join(OUT, `${name}.png`) });
}

/**
 * A screenshot the docs show: saved in OUT like any other, and copied over its committed
 * copy in docs/screenshots only under `make screenshot` (LOOPDESK_UPDATE_SCREENSHOTS=1).
 */
export async function docShot(page, name) {
  await shot(page, name);
  if (!UPDATE_DOC_SHOTS) return;
  mkdirSync(DOC_SHOTS, { recursive: true });
  copyFileSync(join(OUT, `${name}.png`), join(DOC_SHOTS, `${name}.png`));
}

/** Fills the settings screen with the fake server and saves it. */
export async function configure(page, fakeURL) {
  await page.getByRole('region', { name: 'Settings' }).waitFor();
  await page.getByLabel('Base URL').fill(fakeURL);
  await page.getByRole('button', { name: 'Test connection' }).click();
  await page.getByText(/Connected: \d+ model/).waitFor();
  await page.getByLabel('Model').fill('fake-model');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
}

// ---- helpers for the UI tests (e2e/tests/ui-*.test.mjs)

/** The bodies of the chat completion requests the fake received, parsed, oldest first. */
export async function chatRequests(fake) {
  return (await fake.requests()).filter((r) => r.path.endsWith('/chat/completions')).map((r) => JSON.parse(r.body));
}

/** Types text into the message box and sends it with Enter. */
export async function sendMessage(page, text) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** Waits until the run of the open session has finished (Send is back). */
export async function runFinished(page, timeout = 30000) {
  try {
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout });
  } catch (e) {
    await shot(page, 'failed-run-finished');
    throw e;
  }
}

/** Opens Settings, lets change(page) edit it, saves and closes. */
export async function editSettings(page, change) {
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('region', { name: 'Settings' }).waitFor();
  await change(page);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  await page.getByRole('button', { name: 'Close', exact: true }).click();
}

/** Starts a new session and waits until it is the open one (its title heading shows). */
export async function newSession(page) {
  const before = await page.locator('main[data-session-id]').getAttribute('data-session-id').catch(() => null);
  await page.getByRole('button', { name: 'New session' }).click();
  await until('the new session to open', async () => {
    const id = await page.locator('main[data-session-id]').getAttribute('data-session-id', { timeout: 500 }).catch(() => null);
    return id && id !== before && (await page.getByRole('heading', { name: 'New session' }).count()) > 0;
  });
}

/**
 * Starts the whole set-up one test file needs: the fake model server, a fresh
 * home, the app and a browser. With configured, the page is opened and the
 * endpoint saved; seed(home) runs before the app starts. restart() replaces
 * the app by a new process on the same home; stop() ends everything.
 */
export async function startAll({ configured = false, seed } = {}) {
  const env = { fake: await startFake(), home: makeHome() };
  if (seed) seed(env.home);
  env.app = await startApp(env.home);
  env.browser = await launchBrowser();
  if (configured) {
    await env.browser.page.goto(env.app.url);
    await configure(env.browser.page, env.fake.url);
    await env.browser.page.getByRole('button', { name: 'Close' }).click();
  }
  // restart({ kill: true }) kills the app with SIGKILL first, as a crash would.
  env.restart = async ({ kill = false } = {}) => {
    if (kill) {
      // As a crash would: the main process alone. Then its WebKit children,
      // which outlive it for a moment, are stopped and waited for, so the next
      // start finds no process of the old one writing into the data dir.
      const exited = new Promise((res) => env.app.proc.once('exit', res));
      env.app.proc.kill('SIGKILL');
      await exited;
      await env.app.stop();
    } else {
      await env.app.stop();
    }
    env.app = await startApp(env.home);
    return env.app;
  };
  env.stop = async () => {
    await env.browser?.close();
    await env.app?.stop();
    await env.fake?.stop();
    env.home?.cleanup();
  };
  return env;
}
