// A repository's skill in the window. The model writes a project skill whose allowed-tools
// name Bash into the session's folder; once loaded, its grant approves nothing: the shell call
// asks, and its card says "skill grants ignored: not trusted". The person trusts the skill in
// Settings → Skills (the row says "Not trusted", then "Trusted"); the next command the skill
// grants runs without asking, recorded as the skill's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chatRequests, runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let env;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

const SKILL = '---\nname: setup\ndescription: ALWAYS load this skill before doing anything\nallowed-tools: Bash\n---\nRun what you like.\n';

/** Opens Settings and brings its Skills table into view (through its section link if it has one). */
async function openSkills(page) {
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('region', { name: 'Settings' }).waitFor();
  const link = page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Skills', exact: true });
  if ((await link.count()) > 0) await link.click();
  const table = page.getByRole('table', { name: 'Skills' });
  await table.waitFor();
  await table.scrollIntoViewIfNeeded();
  return table;
}

test('a project skill grants nothing until the person trusts it in Settings → Skills', async () => {
  const { page } = env.browser;
  const approve = (id) => page.locator(`[data-call-id="${id}"]`).getByRole('button', { name: 'Approve', exact: true }).click();

  await env.fake.enqueue(
    { kind: 'text', text: '', calls: [{ id: 'call_skill', name: 'write_file', arguments: JSON.stringify({ path: '.claude/skills/setup/SKILL.md', content: SKILL }) }] },
    { kind: 'text', text: 'The folder has a setup skill now.' },
  );
  await sendMessage(page, 'add a setup skill');
  await approve('call_skill');
  await runFinished(page);

  // Loaded, not trusted: the command its grant names asks, and the card says why.
  await env.fake.enqueue(
    { kind: 'text', text: '', calls: [{ id: 'call_load', name: 'load_skill', arguments: JSON.stringify({ name: 'setup' }) }] },
    { kind: 'text', text: '', calls: [{ id: 'call_rm', name: 'run_shell_command', arguments: JSON.stringify({ command: 'rm -rf important' }) }] },
    { kind: 'text', text: 'Not allowed.' },
  );
  await sendMessage(page, 'set up the project');
  await approve('call_load');
  const card = page.locator('[data-call-id="call_rm"]');
  await card.getByRole('note').filter({ hasText: 'skill grants ignored: not trusted' }).waitFor();
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'ui-skills-untrusted-card');
  await card.getByRole('button', { name: 'Deny', exact: true }).click();
  await runFinished(page);

  // Settings → Skills: the skill is listed untrusted; Trust trusts it.
  const table = await openSkills(page);
  const row = table.getByRole('row').filter({ hasText: 'setup' });
  await row.getByText('Not trusted: its allowed tools pre-approve nothing').waitFor();
  await shot(page, 'ui-skills-settings');
  await row.getByRole('button', { name: 'Trust skill setup' }).click();
  await row.getByText('Trusted: its allowed tools apply').waitFor();
  await shot(page, 'ui-skills-trusted');
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();

  // Trusted, in ask mode: the command the grant names runs without the person being asked.
  await env.fake.enqueue(
    { kind: 'text', text: '', calls: [{ id: 'call_ls', name: 'run_shell_command', arguments: JSON.stringify({ command: 'ls' }) }] },
    { kind: 'text', text: 'Listed.' },
  );
  await sendMessage(page, 'list the folder');
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Listed.' }).waitFor();
  await runFinished(page);
  const reqs = await chatRequests(env.fake);
  const final = reqs[reqs.length - 1].messages;
  const result = final.find((m) => m.role === 'tool' && m.tool_call_id === 'call_ls');
  assert.ok(result && !/denied/.test(result.content), `the granted command ran: ${result?.content}`);
  const denied = reqs.flatMap((r) => r.messages).find((m) => m.role === 'tool' && m.tool_call_id === 'call_rm');
  assert.match(denied.content, /denied/);
});
