// The inbox's two latency figures (scripts/bench-inbox.sh runs this under Xvfb; docs/benchmarks.md,
// "Inbox"), measured with the page's own clock (performance.now) in the app's dev-server build
// against the scripted fake model:
//
//   arrive  a call that starts waiting in a background session, from the page receiving its
//           approval_requested to its card painted in the open inbox (the frame after it is in
//           the DOM). Goal: p95 <= 100 ms.
//   run     a call that starts waiting in a `loopdesk run` process of its own (no terminal:
//           it registers the call with the window over the inbox socket), from the run's
//           requested_at (its process's clock: the same machine's) to its card painted in the
//           open inbox; then the page approves it and the run must end with 0. Goal: p95 <= 200 ms.
//   approve from the click on Approve to the page receiving the call's tool_started, on the
//           inbox's card and on the session's own card, alternated. Goal: inbox median <= 1.2x
//           the card's.
//
//   node e2e/bench-inbox.mjs [SAMPLES]      default 20 of each
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startAll, until } from './harness.mjs';

const samples = Number(process.argv[2] ?? 20);
// The window's inbox socket and the runs' lookup of it: a runtime dir of the bench's own (short:
// a socket's path has at most 107 bytes), inherited by the app and every run.
process.env.XDG_RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'ld'));
const env = await startAll({ configured: true });
const { page } = env.browser;
const enqueueFor = (marker, ...replies) => env.fake.enqueueFor(marker, ...replies);

/** A session in folder whose first message makes one shell call wait, then ends. */
async function waitingSession(folder, marker) {
  await enqueueFor(marker, { kind: 'text', calls: [{ id: `call-${marker}`, name: 'run_shell_command', arguments: JSON.stringify({ command: 'true' }) }] }, { kind: 'text', text: 'ok' });
  return page.evaluate((dir) => window.go.desktop.Sessions.NewSession(dir).then((s) => s.id), folder);
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const fmt = (x) => x.toFixed(1);

// The page's recorder: when each loop event arrived, and when each inbox card was first painted.
async function installRecorder() {
  await page.waitForFunction(() => window.runtime?.EventsOn !== undefined && window.go?.desktop?.Chat?.SendMessage !== undefined);
  await page.evaluate(() => {
    const rec = { events: {}, painted: {}, requested: {} };
    window.__bench = rec;
    window.runtime.EventsOn('loop:event', (...evs) => {
      const at = performance.now();
      for (const ev of evs) if (ev.call_id) rec.events[`${ev.type}:${ev.call_id}`] ??= at;
    });
    // The inbox may learn of a call (inbox:changed) before its approval_requested arrives
    // (loop events go out once per frame): the first of the two is when the page knew.
    window.runtime.EventsOn('inbox:changed', (v) => {
      const at = performance.now();
      for (const a of v?.approvals ?? []) {
        rec.events[`approval_requested:${a.call_id}`] ??= at;
        rec.requested[`${a.session_id}:${a.call_id}`] ??= Date.parse(a.requested_at);
      }
    });
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('.inbox-card[data-key]')) {
        const key = el.getAttribute('data-key');
        if (rec.painted[key] !== undefined) continue;
        rec.painted[key] = -1;
        requestAnimationFrame(() => (rec.painted[key] = performance.now()));
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
}

/**
 * Waits for the inbox card of call painted: { key, page, go } — ms from the page's first word of
 * the call, and from Go's requested_at (the same machine's clock: what the page cannot see).
 */
function cardPainted(marker, call) {
  return until(`the card of ${marker} painted`, () =>
    page.evaluate((c) => {
      const r = window.__bench;
      const key = Object.keys(r.painted).find((k) => k.endsWith(`:${c}`));
      const end = key === undefined ? undefined : r.painted[key];
      const start = r.events[`approval_requested:${c}`];
      if (!(end > 0) || start === undefined || r.requested[key] === undefined) return false;
      return { key, page: end - start, go: performance.timeOrigin + end - r.requested[key] };
    }, call),
  );
}

async function arrivals(folder) {
  await page.keyboard.press('Control+i');
  await page.getByRole('main', { name: 'Inbox' }).waitFor();
  const out = [];
  for (let i = 0; i < samples; i++) {
    const marker = `[arrive-${i}]`;
    const id = await waitingSession(folder, marker);
    await page.evaluate(([sid, text]) => window.go.desktop.Chat.SendMessage(sid, text), [id, `${marker} go`]);
    const ms = await cardPainted(marker, `call-${marker}`);
    out.push(ms);
  }
  // Clear them, so the approvals below start from an empty inbox.
  await page.evaluate(() => window.go.desktop.Chat.Inbox()).then((v) =>
    Promise.all((v.approvals ?? []).map((a) => page.evaluate((x) => window.go.desktop.Chat.InboxAnswer(x), { session_id: a.session_id, call_id: a.call_id, approve: false, reason: '', arguments: '' }))),
  );
  await page.keyboard.press('Control+i');
  return out;
}

/** Starts `loopdesk run --approve ask` without a terminal on the window's database: exit code. */
function startRun(folder, prompt) {
  const bin = join(ROOT, 'build', 'bin', 'loopdesk-dev');
  const args = ['run', '--db', env.home.db, '--workspace', folder, '--base-url', env.fake.url, '--model', 'fake-model', '--approve', 'ask', '--json', prompt];
  const runEnv = { ...process.env, XDG_CONFIG_HOME: env.home.config, XDG_DATA_HOME: env.home.dir, OPENAI_API_KEY: 'sk-e2e' };
  const run = spawn(bin, args, { env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  run.stdout.on('data', (d) => (out += d));
  run.stderr.on('data', (d) => (out += d));
  const exited = new Promise((res) => run.once('exit', (code, sig) => res(code ?? sig)));
  return { exited, out: () => out, kill: () => run.kill('SIGKILL') };
}

async function runArrivals(folder) {
  await page.keyboard.press('Control+i');
  await page.getByRole('main', { name: 'Inbox' }).waitFor();
  const out = [];
  for (let i = 0; i < samples; i++) {
    const marker = `[run-${i}]`;
    const call = `call-run-${i}`;
    const file = `run-${i}.txt`;
    await enqueueFor(marker, { kind: 'text', calls: [{ id: call, name: 'write_file', arguments: JSON.stringify({ path: file, content: `${marker}\n` }) }] }, { kind: 'text', text: 'ok' });
    const run = startRun(folder, `${marker} write ${file}`);
    try {
      const ms = await cardPainted(marker, call);
      out.push(ms);
      const [sid] = ms.key.split(':');
      await page.evaluate((x) => window.go.desktop.Chat.InboxAnswer(x), { session_id: sid, call_id: call, approve: true, reason: '', arguments: '' });
      const code = await run.exited;
      if (code !== 0 || !existsSync(join(folder, file))) throw new Error(`loopdesk run of ${marker} ended with ${code}, ${file} ${existsSync(join(folder, file)) ? 'written' : 'missing'}:\n${run.out()}`);
    } finally {
      run.kill();
    }
  }
  await page.keyboard.press('Control+i');
  return out;
}

/** Clicks Approve in the element matched by selector, then waits for tool_started of call: ms. */
async function approveAndTime(selector, call) {
  const start = await page.evaluate((sel) => {
    const button = [...document.querySelector(sel).querySelectorAll('button')].find((b) => b.textContent.trim() === 'Approve');
    const t = performance.now();
    button.click();
    return t;
  }, selector);
  return until(`tool_started of ${call}`, () => page.evaluate(([c, t0]) => {
    const at = window.__bench.events[`tool_started:${c}`];
    return at === undefined ? false : at - t0;
  }, [call, start]));
}

async function approvals(folder) {
  const inbox = [];
  const card = [];
  const list = page.getByRole('navigation', { name: 'Sessions' });
  for (let i = 0; i < samples; i++) {
    // The session's own card: open the session, its call waiting.
    const own = `[own-${i}]`;
    const ownID = await waitingSession(folder, own);
    await page.evaluate(([sid, text]) => window.go.desktop.Chat.SendMessage(sid, text), [ownID, `${own} go`]);
    await list.getByRole('button', { name: new RegExp(own.replace(/[[\]]/g, '\\$&')) }).first().click();
    const sel = `.tool-card.pending[data-call-id="call-${own}"]`;
    await page.locator(sel).getByRole('button', { name: 'Approve', exact: true }).waitFor();
    card.push(await approveAndTime(sel, `call-${own}`));

    // The inbox's card.
    const inb = `[inbox-${i}]`;
    const inbID = await waitingSession(folder, inb);
    await page.evaluate(([sid, text]) => window.go.desktop.Chat.SendMessage(sid, text), [inbID, `${inb} go`]);
    await page.keyboard.press('Control+i');
    const key = `.inbox-card[data-key="${inbID}:call-${inb}"]`;
    await page.locator(key).getByRole('button', { name: 'Approve', exact: true }).waitFor();
    inbox.push(await approveAndTime(key, `call-${inb}`));
    await page.keyboard.press('Control+i');
  }
  return { inbox, card };
}

try {
  await page.reload();
  await installRecorder();
  const folder = mkdtempSync(join(tmpdir(), 'loopdesk-bench-inbox-'));
  const report = (name, xs, goal) =>
    console.log(`${name} n=${xs.length} median=${fmt(quantile(xs, 0.5))} p95=${fmt(quantile(xs, 0.95))} max=${fmt(Math.max(...xs))}${goal}`);
  const arrive = await arrivals(folder);
  report('arrive_ms', arrive.map((a) => a.page), ' (goal p95 <= 100)');
  report('arrive_from_requested_at_ms', arrive.map((a) => a.go), ' (goal p95 <= 100)');
  const fromRun = await runArrivals(folder);
  report('run_arrive_ms', fromRun.map((a) => a.go), ' (from the run\'s requested_at; goal p95 <= 200)');
  report('run_arrive_page_ms', fromRun.map((a) => a.page), '');
  const { inbox, card } = await approvals(folder);
  const mi = quantile(inbox, 0.5);
  const mc = quantile(card, 0.5);
  console.log(`approve_card_ms n=${card.length} median=${fmt(mc)} p95=${fmt(quantile(card, 0.95))}`);
  console.log(`approve_inbox_ms n=${inbox.length} median=${fmt(mi)} p95=${fmt(quantile(inbox, 0.95))}`);
  console.log(`x_inbox_vs_card=${(mi / mc).toFixed(2)} (medians; goal <= 1.20)`);
} finally {
  await env.stop();
  rmSync(process.env.XDG_RUNTIME_DIR, { recursive: true, force: true });
}
