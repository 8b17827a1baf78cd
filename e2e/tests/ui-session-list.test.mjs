// The session list with 1,000 sessions: the window reads a page of them from Go and holds that
// page in the DOM, not every session; scrolling near the end reads the next page, and with many
// read the list renders those in view and a margin; a project's group says how many sessions it
// holds from Go's count, not from the sessions read.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, shot, startAll } from '../harness.mjs';

const SESSIONS = 1000;
let env;

before(async () => {
  env = await startAll({ configured: true, seed: seedSessions });
});

after(async () => {
  await env?.stop();
});

/**
 * One session imported through the product, then 999 more as copies of its sessions row (a
 * row each, newest last; every tenth copy, 99, in the project "Big project").
 */
function seedSessions(h) {
  const at = new Date(Date.now() - 86_400_000).toISOString();
  const lines = [
    JSON.stringify({ type: 'session', format: 1, session: { id: 'x', title: 'session 0', workspace: '', model: 'fake-model', parent_id: '', fork_seq: 0, created_at: at, updated_at: at } }),
    JSON.stringify({ type: 'chunk', seq: 1, kind: 'user', payload: { text: 'hello' }, run_id: '', created_at: at }),
  ];
  const file = join(h.dir, 'one.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  execFileSync(join(ROOT, 'build', 'bin', 'loopdesk-dev'), ['sessions', 'import', file, '--db', h.db], { stdio: 'pipe' });
  const sql = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${SESSIONS - 1})
    INSERT INTO sessions(id, title, workspace, model, parent_id, fork_seq, created_at, updated_at, provider, parent_call_id, project, archived, last_seq, pending)
    SELECT printf('copy%04d', i), 'session ' || i, s.workspace, s.model, '', 0, s.created_at + i, s.updated_at + i * 1000, s.provider, '',
      CASE WHEN i % 10 = 0 THEN 'Big project' ELSE '' END, 0, 0, '[]' FROM n, sessions s;`;
  execFileSync('sqlite3', [h.db, sql], { stdio: 'pipe' });
}

const listItems = (page) => page.locator('nav[aria-label="Sessions"] button.session').count();

test('a list of 1,000 sessions holds a page of them in the DOM', async () => {
  const { page } = env.browser;
  const nav = page.getByRole('navigation', { name: 'Sessions' });
  await nav.getByRole('button', { name: /^session 999\b/ }).waitFor();
  const first = await listItems(page);
  assert.ok(first <= 100, `the list holds ${first} sessions in the DOM, want at most a page (100)`);
  const project = nav.getByRole('region', { name: 'Project Big project' });
  assert.equal(await project.getByTitle('99 sessions in Big project').textContent(), '99');
  await nav.getByRole('button', { name: `Show more sessions (${SESSIONS - first} more)` }).waitFor();
  await shot(page, 'ui-session-list-1000');

  // Scrolling to the end of the list reads the next page; once many are read, the list renders
  // those in view and a margin, however many it has read.
  const groups = page.locator('nav[aria-label="Sessions"] .session-groups');
  for (let read = first; read < 600; read += 100) {
    await groups.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
      el.dispatchEvent(new Event('scroll'));
    });
    await nav.getByRole('button', { name: `Show more sessions (${SESSIONS - read - 100} more)` }).waitFor();
    const shown = await listItems(page);
    assert.ok(shown <= 120, `with ${read + 100} sessions read the list holds ${shown} in the DOM`);
  }
  await groups.evaluate((el) => {
    el.scrollTop = 0;
    el.dispatchEvent(new Event('scroll'));
  });
  // Back at the top: the first project's newest session again.
  await nav.getByRole('button', { name: /^session 990\b/ }).waitFor();
  // Search still reaches a session not read into the list.
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('hello');
  await page.getByLabel('Search results').getByRole('button', { name: /session 0/ }).waitFor();
});
