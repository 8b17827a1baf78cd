// Organising many sessions in the window: projects group the list (chosen for a selection,
// by dragging onto a project, or from the header), archive hides a session that search and
// "Show archived" still find, and a multi-selection deleted at once leaves nothing of its
// sessions in the database.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { docShot, newSession, runFinished, sendMessage, startAll, until } from '../harness.mjs';

let env;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

const nav = (page) => page.getByRole('navigation', { name: 'Sessions' });
const item = (page, title) => nav(page).getByRole('button', { name: new RegExp(`^${title}`) });
const ids = {};

/** A session named by its first message, answered by the fake model. */
async function session(page, text) {
  await newSession(page);
  await sendMessage(page, text);
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: `You said: ${text}` }).waitFor();
  await runFinished(page);
  ids[text] = await page.locator('main[data-session-id]').getAttribute('data-session-id');
}

async function ctrlClick(page, title) {
  await page.keyboard.down('Control');
  await item(page, title).click();
  await page.keyboard.up('Control');
}

function sql(q) {
  return execFileSync('sqlite3', [env.home.db, q], { encoding: 'utf8' }).trim();
}

test('projects group the list; archive hides a session that search still finds', async () => {
  const { page } = env.browser;
  for (const t of ['landing page copy', 'pricing table', 'release script', 'meeting notes', 'old experiment']) await session(page, t);

  // Two chosen with Ctrl (a selection starts with the open session), moved to a new project.
  await item(page, 'landing page copy').click();
  await ctrlClick(page, 'pricing table');
  const bar = nav(page).getByRole('toolbar', { name: 'Selected sessions' });
  await bar.getByText('2 selected').waitFor();
  await bar.getByRole('combobox', { name: 'Move to project' }).selectOption({ label: 'New project…' });
  await nav(page).getByRole('textbox', { name: 'New project name' }).fill('Website');
  await nav(page).getByRole('textbox', { name: 'New project name' }).press('Enter');
  const website = nav(page).getByRole('region', { name: 'Project Website' });
  await website.getByRole('button', { name: /^pricing table/ }).waitFor();
  await website.getByRole('button', { name: /^landing page copy/ }).waitFor();

  // One dragged onto the project.
  await item(page, 'release script').dragTo(website.getByRole('heading', { name: 'Website' }));
  await website.getByRole('button', { name: /^release script/ }).waitFor();

  // One put in a project from its header.
  await item(page, 'meeting notes').click();
  const head = page.locator('header.main-head');
  await head.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'New project…' });
  await head.getByRole('textbox', { name: 'New project name' }).fill('Admin');
  await head.getByRole('textbox', { name: 'New project name' }).press('Enter');
  await nav(page).getByRole('region', { name: 'Project Admin' }).getByRole('button', { name: /^meeting notes/ }).waitFor();
  await head.getByText(/ on disk$/).waitFor();
  assert.equal(sql(`SELECT project FROM sessions WHERE id = '${ids['release script']}'`), 'Website');

  // The list: projects first, then the rest by recency.
  const groups = await nav(page).locator('.session-groups > section > h2').allTextContents();
  assert.deepEqual(groups, ['Admin', 'Website', 'Today']);
  await docShot(page, 'ui-organise-projects');

  // Archive: gone from the list, found by search, listed under Show archived, and it opens.
  // (The open session starts the selection; a second Ctrl-click takes it out again.)
  await ctrlClick(page, 'old experiment');
  await nav(page).getByText('2 selected').waitFor();
  await ctrlClick(page, 'meeting notes');
  await nav(page).getByText('1 selected').waitFor();
  await nav(page).getByRole('toolbar', { name: 'Selected sessions' }).getByRole('button', { name: 'Archive' }).click();
  await nav(page).getByText('Archived 1 session.').waitFor();
  assert.equal(await item(page, 'meeting notes').count(), 1);
  await until('the archived session to leave the list', async () => (await item(page, 'old experiment').count()) === 0);
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('experiment');
  await page.getByLabel('Search results').getByRole('button').filter({ hasText: 'old experiment' }).first().waitFor();
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('');
  await nav(page).getByRole('checkbox', { name: 'Show archived' }).check();
  const archived = nav(page).getByRole('region', { name: 'Archived' });
  await archived.getByRole('button', { name: /^old experiment/ }).click();
  await page.getByRole('heading', { name: 'old experiment' }).waitFor();
  assert.equal(sql(`SELECT archived FROM sessions WHERE id = '${ids['old experiment']}'`), '1');
  await nav(page).getByRole('checkbox', { name: 'Show archived' }).uncheck();
  assert.deepEqual(env.browser.consoleErrors, []);
});

test('a multi-selection is deleted at once, with everything of it', async () => {
  const { page } = env.browser;
  // Shift selects the range from the last Ctrl-click: the Website project's three.
  const website = nav(page).getByRole('region', { name: 'Project Website' });
  const titles = await website.locator('.session-title').allTextContents();
  await item(page, titles[0]).click();
  await page.keyboard.down('Shift');
  await item(page, titles[2]).click();
  await page.keyboard.up('Shift');
  const bar = nav(page).getByRole('toolbar', { name: 'Selected sessions' });
  await bar.getByText('3 selected').waitFor();
  assert.equal(await nav(page).locator('button.session[aria-pressed="true"]').count(), 3);
  await docShot(page, 'ui-organise-multiselect');

  await bar.getByRole('button', { name: 'Delete' }).click();
  const confirm = nav(page).getByRole('alertdialog', { name: 'Delete sessions?' });
  await confirm.getByRole('button', { name: 'Delete 3' }).click();
  await nav(page).getByText(/^Deleted 3 sessions: 6 rows, /).waitFor();
  await until('the project to go from the list', async () => (await website.count()) === 0);
  const gone = ['landing page copy', 'pricing table', 'release script'].map((t) => `'${ids[t]}'`).join(', ');
  assert.equal(sql(`SELECT count(*) FROM sessions WHERE id IN (${gone})`), '0');
  assert.equal(sql(`SELECT count(*) FROM chunks WHERE session_id IN (${gone})`), '0');
  assert.equal(sql(`SELECT count(*) FROM sessions`), '2');
  await item(page, 'meeting notes').waitFor();
  assert.deepEqual(env.browser.consoleErrors, []);
});
