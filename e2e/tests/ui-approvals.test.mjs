// Approvals in the window: one call approved and one denied with a reason in
// the same turn; then an "Always allow" rule, edited in its dialog, saved and
// honoured on the next call without asking.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chatRequests, runFinished, sendMessage, shot, newSession, startAll } from '../harness.mjs';

let fake, app, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, app, browser } = env);
});

after(async () => {
  await env?.stop();
});

const card = (page, tool) => page.getByRole('region', { name: `Tool call ${tool}` });

test('one call approved and one denied with a reason, in one turn', async () => {
  const { page } = browser;
  await fake.enqueue(
    {
      kind: 'text',
      text: 'I will write the file and clean up.',
      calls: [
        { id: 'call_w', name: 'write_file', arguments: JSON.stringify({ path: 'hello.txt', content: 'hello\nworld\n' }) },
        { id: 'call_s', name: 'run_shell_command', arguments: JSON.stringify({ command: 'rm -rf build' }) },
      ],
    },
    { kind: 'text', text: 'Wrote hello.txt and left build alone.' },
  );
  await sendMessage(page, 'write hello.txt please');

  const write = card(page, 'write_file');
  const shell = card(page, 'run_shell_command');
  await write.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  await shell.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  // Both wait: the status line offers to decide them all at once.
  await page.getByRole('button', { name: 'Approve all' }).waitFor();
  // The write shows as a diff of the new file; the shell call as its command.
  await write.getByRole('figure', { name: 'Change to hello.txt' }).getByText('+ world').waitFor();
  assert.equal(await shell.getByLabel('Command').textContent(), '$ rm -rf build');
  await shot(page, 'ui-01-approval-pending');

  await write.getByRole('button', { name: 'Approve', exact: true }).click();
  await shell.getByRole('button', { name: 'Deny with reason' }).click();
  await shell.getByRole('textbox', { name: 'Reason' }).fill('never delete build here');
  await shell.getByRole('button', { name: 'Send denial' }).click();

  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Wrote hello.txt and left build alone.' }).waitFor();
  await runFinished(page);
  await shell.getByText(/Denied by you: “never delete build here”/).waitFor();
  await write.getByText(/Approved by you/).waitFor();
  await shot(page, 'ui-02-approved-and-denied');

  // What the model was told: the write's result, and the denial with the reason.
  const reqs = await chatRequests(fake);
  const tools = reqs.at(-1).messages.filter((m) => m.role === 'tool');
  assert.equal(tools.length, 2);
  const byID = Object.fromEntries(tools.map((m) => [m.tool_call_id, String(m.content)]));
  assert.doesNotMatch(byID.call_w, /denied/i);
  assert.match(byID.call_s, /never delete build here/);

  // The file is really there: the workspace tab lists it as touched.
  await page.getByRole('tab', { name: 'Workspace' }).click();
  await page.getByRole('tree', { name: 'Workspace files' }).getByRole('treeitem', { name: 'hello.txt' }).waitFor();
  // Marked as changed, linked to the row of the call; a click previews it.
  await page.getByRole('region', { name: 'Touched files' }).getByText('hello.txt').click();
  await page.getByRole('region', { name: 'Preview of hello.txt' }).getByText('hello').first().waitFor();
  await shot(page, 'ui-11-workspace');
  await page.getByRole('tab', { name: 'Budget' }).click();
  assert.deepEqual(browser.consoleErrors, []);
});

test('an always-allow rule is created from the card and honoured on the next call', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue(
    { kind: 'text', calls: [{ id: 'call_a', name: 'run_shell_command', arguments: JSON.stringify({ command: 'echo first' }) }] },
    { kind: 'text', text: 'First done.' },
  );
  await sendMessage(page, 'say first');
  const shell = card(page, 'run_shell_command');
  await shell.getByRole('button', { name: 'Always allow' }).click();
  const dialog = page.getByRole('dialog', { name: 'Always allow rule' });
  await dialog.waitFor();
  assert.equal(await dialog.getByRole('textbox', { name: 'Tool' }).inputValue(), 'run_shell_command');
  const suggested = await dialog.getByRole('textbox', { name: 'Pattern' }).inputValue();
  assert.ok(suggested.startsWith('echo'), `suggested pattern: ${suggested}`);
  // Edited before saving: allow every echo, in this session.
  await dialog.getByRole('textbox', { name: 'Pattern' }).fill('echo *');
  await dialog.getByRole('combobox', { name: 'Scope' }).selectOption('session');
  await shot(page, 'ui-03-always-allow-dialog');
  await dialog.getByRole('button', { name: 'Save rule and approve' }).click();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'First done.' }).waitFor();
  await runFinished(page);
  // The answer that saved the rule says so as a rule, not as words the person typed.
  const first = page.locator('[data-call-id="call_a"]');
  await first.getByText('Approved by you, and allowed from now on: allow run_shell_command echo * in this session', { exact: true }).waitFor();
  assert.equal(await first.getByText(/“/).count(), 0, 'the rule is not quoted as the person\'s words');
  await first.scrollIntoViewIfNeeded();
  await shot(page, 'ui-always-allow-answer');

  // The next echo runs without asking; the card says which rule allowed it.
  await fake.enqueue(
    { kind: 'text', calls: [{ id: 'call_b', name: 'run_shell_command', arguments: JSON.stringify({ command: 'echo second' }) }] },
    { kind: 'text', text: 'Second done.' },
  );
  await sendMessage(page, 'say second');
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Second done.' }).waitFor();
  await runFinished(page);
  const second = page.locator('[data-call-id="call_b"]');
  await second.getByText(/Approved by the rule: allow run_shell_command echo \S* in this session/).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Approve', exact: true }).count(), 0);
  const out = await second.locator('details.tool-result pre').textContent();
  assert.match(out, /second/);

  // The rule is listed in Settings.
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  const rules = page.getByRole('table', { name: 'Saved rules' });
  await rules.getByText('echo *').waitFor();
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  assert.deepEqual(browser.consoleErrors, []);
});

test('edited arguments are what runs and what is recorded', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue(
    { kind: 'text', calls: [{ id: 'call_e', name: 'run_shell_command', arguments: JSON.stringify({ command: 'echo original' }) }] },
    { kind: 'text', text: 'Edited run done.' },
  );
  await sendMessage(page, 'run something');
  const shell = card(page, 'run_shell_command');
  try {
    await shell.getByRole('button', { name: 'Edit arguments' }).waitFor();
  } catch (e) {
    await shot(page, 'failed-edit-arguments');
    throw new Error(`${e.message}\n${(await page.locator('main').textContent()).slice(0, 600)}`);
  }
  await shell.getByRole('button', { name: 'Edit arguments' }).click();
  await shell.getByRole('textbox', { name: 'Arguments' }).fill('{"command": "echo edited-by-person"}');
  await shell.getByRole('button', { name: 'Approve edited call' }).click();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Edited run done.' }).waitFor();
  await runFinished(page);
  await shell.getByLabel('Command').filter({ hasText: '$ echo edited-by-person' }).waitFor();
  await shell.getByText('Arguments edited before it ran').waitFor();
  await shell.locator('details.tool-result pre').filter({ hasText: 'edited-by-person' }).waitFor();
  const tool = (await chatRequests(fake)).at(-1).messages.find((m) => m.role === 'tool');
  assert.match(String(tool.content), /edited-by-person/);
  assert.deepEqual(browser.consoleErrors, []);
});
