// A `loopdesk run` that already waits at its terminal (approval mode review, hunk by hunk)
// when the window opens: the window's inbox gets its call at once, labelled with the run's
// pid and saying that the hunks are reviewed in the session; Approve all hunks answers it in
// the run's process (its terminal prompt closes), the whole change is written, and the run's
// ended card says where it came from.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { configure, launchBrowser, makeHome, ROOT, shot, startApp, startFake, until } from '../harness.mjs';

const stops = [];
after(async () => {
  for (const stop of stops.reverse()) await stop();
});

test('a run waiting before the window opens is answered from its inbox, every hunk kept', async () => {
  const fake = await startFake();
  stops.push(() => fake.stop());
  const home = makeHome();
  stops.push(() => home.cleanup());
  const runtime = mkdtempSync(join(tmpdir(), 'ld')); // short: a socket's path has at most 107 bytes
  stops.push(() => rmSync(runtime, { recursive: true, force: true }));
  const folder = mkdtempSync(join(tmpdir(), 'loopdesk-late-'));
  const lines = (up) => Array.from({ length: 30 }, (_, i) => (up.includes(i + 1) ? `LINE ${i + 1}\n` : `line ${i + 1}\n`)).join('');
  writeFileSync(join(folder, 'r.txt'), lines([]));
  await fake.enqueue(
    { kind: 'text', calls: [{ id: 'call_r', name: 'write_file', arguments: JSON.stringify({ path: 'r.txt', content: lines([3, 27]) }) }] },
    { kind: 'text', text: 'edited' },
  );

  // The run asks on a terminal of its own (script gives it one) before any window exists.
  const bin = join(ROOT, 'build', 'bin', 'loopdesk-dev');
  const cmd = [bin, 'run', '--db', home.db, '--workspace', folder, '--base-url', fake.url, '--model', 'fake-model', '--approve', 'review', '--json', 'edit r.txt']
    .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: home.config, OPENAI_API_KEY: 'sk-e2e' };
  const run = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  run.stdout.on('data', (d) => (out += d));
  run.stderr.on('data', (d) => (out += d));
  const exited = new Promise((res) => run.once('exit', (code) => res(code)));
  stops.push(async () => {
    run.kill('SIGKILL');
    await exited;
  });
  await until('the run to ask about the first hunk at its terminal', async () => out.includes('hunk 1/2'));

  const opened = Date.now();
  const app = await startApp(home, { XDG_RUNTIME_DIR: runtime });
  stops.push(() => app.stop());
  const browser = await launchBrowser();
  stops.push(() => browser.close());
  const { page } = browser;
  await page.goto(app.url);
  await configure(page, fake.url);
  await page.getByRole('button', { name: 'Close' }).click();
  const inboxButton = page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Inbox: 1 waiting' });
  await inboxButton.waitFor({ timeout: 30000 });
  // From starting the window's process to the badge counting the call: the app's start, the
  // page's load and its settings included (the registration itself is milliseconds).
  console.log(`the waiting call was counted in the window ${Date.now() - opened} ms after the window's process was started`);
  await inboxButton.click();
  const card = page.getByRole('article', { name: /^write_file waiting in / });
  await card.waitFor();
  const origin = await card.locator('.origin').textContent();
  assert.match(origin, /^loopdesk run \(pid \d+\)$/);
  assert.equal(await card.getByRole('note').first().textContent(), 'Review hunk by hunk in the session (Open session). Approve here keeps every hunk.');
  await shot(page, 'inbox-late-review');

  await card.getByRole('button', { name: 'Approve all hunks' }).click();
  assert.equal(await exited, 0, out);
  assert.match(out, /answered in the Loopdesk window's inbox/);
  assert.equal(readFileSync(join(folder, 'r.txt'), 'utf8'), lines([3, 27]));
  assert.match(out, /the person reviewed this change to r\.txt/);

  const ended = page.getByRole('region', { name: 'Ended runs' });
  await until('the run in the ended list with where it came from', async () => /from loopdesk run \(pid \d+\)/.test((await ended.textContent().catch(() => '')) ?? ''));
  assert.ok((await ended.textContent()).includes(`from ${origin}`), 'the ended card names the same process as the call did');
  await shot(page, 'inbox-late-ended');
});
