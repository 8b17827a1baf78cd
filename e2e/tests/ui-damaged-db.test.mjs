// The database file in the window: Settings → Backups takes a checked backup, and a database
// with a page overwritten opens on the damaged-database screen — what is wrong, Check naming
// the rows affected, Recover copying the rest into a new file — without a byte of it changing;
// Open another starts Loopdesk on the recovered copy, whose sessions are all there.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { openSync, readFileSync, readdirSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { newSession, runFinished, sendMessage, shot, startAll, startApp, until } from '../harness.mjs';

let env;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

const hash = (p) => createHash('sha256').update(readFileSync(p)).digest('hex');
const sql = (q) => execFileSync('sqlite3', [env.home.db, q], { encoding: 'utf8' }).trim();

test('Settings → Backups, then a damaged database opens on its own screen', async () => {
  const page = env.browser.page;
  const texts = [];
  for (let i = 0; i < 6; i++) {
    const text = `message ${i} ` + 'about the journal that must survive the machine '.repeat(30);
    texts.push(text);
    await newSession(page);
    await sendMessage(page, text);
    await runFinished(page);
  }

  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  const backups = page.getByRole('region', { name: 'Backups' });
  await backups.scrollIntoViewIfNeeded();
  await backups.getByLabel('Back up', { exact: true }).selectOption('hourly');
  await backups.getByLabel('Backups to keep').fill('3');
  await backups.getByRole('button', { name: 'Save backups' }).click();
  await backups.getByText('Saved.').waitFor();
  await backups.getByRole('button', { name: 'Back up now' }).click();
  await backups.getByText('Backed up.').waitFor();
  await shot(page, 'backups-settings');
  const dir = join(env.home.dir, 'backups');
  // Back up now's is the newest (a minute after the window started, its schedule's too).
  const files = readdirSync(dir).filter((f) => /^loopdesk-\d{8}T\d{6}Z\.db$/.test(f)).sort();
  assert.ok(files.length >= 1, `backups in ${dir}: ${readdirSync(dir)}`);
  assert.equal(execFileSync('sqlite3', [join(dir, files.at(-1)), 'SELECT count(*) FROM sessions'], { encoding: 'utf8' }).trim(), '6');
  await page.getByRole('button', { name: 'Close', exact: true }).click();

  // Damage: junk over a leaf page of the rows, in the middle of the file, with the app closed.
  await env.app.stop();
  const leaves = sql(`SELECT pageno FROM dbstat WHERE name = 'chunks' AND pagetype = 'leaf' ORDER BY pageno`).split('\n').map(Number);
  assert.ok(leaves.length >= 3, `only ${leaves.length} leaf pages`);
  const pageSize = Number(sql('PRAGMA page_size'));
  const fd = openSync(env.home.db, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (leaves[Math.floor(leaves.length / 2)] - 1) * pageSize);
  closeSync(fd);
  const damaged = hash(env.home.db);

  env.app = await startApp(env.home);
  await page.goto(env.app.url);
  await page.getByRole('heading', { name: 'This database is damaged' }).waitFor();
  await page.getByRole('alert').filter({ hasText: 'Nothing was written to it' }).waitFor();
  for (const name of ['Check', 'Recover', 'Open another']) assert.ok(await page.getByRole('button', { name, exact: true }).isVisible(), name);
  await shot(page, 'damaged-db-screen');

  await page.getByRole('button', { name: 'Check', exact: true }).click();
  const problems = page.getByRole('table', { name: 'Problems' });
  await problems.waitFor();
  assert.ok((await problems.getByRole('row').filter({ hasText: 'unreadable_row' }).count()) > 0, 'Check names the rows that cannot be read');
  await shot(page, 'damaged-db-check');

  await page.getByRole('button', { name: 'Recover', exact: true }).click();
  const report = page.getByRole('status').filter({ hasText: /Recovered 6 session\(s\)/ });
  await report.waitFor();
  await shot(page, 'damaged-db-recovered');
  assert.equal(hash(env.home.db), damaged, 'the damaged file changed');

  // Open the recovered copy: the same program starts again on it (the same process, exec'd).
  await page.getByRole('button', { name: 'Open the recovered copy' }).click();
  await until('the window on the recovered copy', async () => {
    await page.goto(env.app.url, { timeout: 2000 }).catch(() => {});
    return (await page.getByRole('navigation', { name: 'Sessions' }).count()) > 0;
  });
  const nav = page.getByRole('navigation', { name: 'Sessions' });
  await until('the six sessions', async () => (await nav.getByRole('button', { name: /^message \d/ }).count()) === 6);
  await shot(page, 'damaged-db-reopened');
  assert.equal(hash(env.home.db), damaged, 'the damaged file changed');
});
