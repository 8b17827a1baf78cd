// Hooks and slash commands in the window. The model writes a project hook (a PreToolUse guard
// that refuses `rm -rf`, exit 2) and a command template into the session's folder; the hook
// does not run until the person trusts it in Settings → Hooks ("This folder has hooks", the
// command, Trust); the "/" palette of the message box lists the command, which is sent
// expanded; the model's `rm -rf` is then denied by the trusted hook without the person being
// asked, and the card says which hook denied it and why.
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

const GUARD = "grep -q 'rm -rf' && { echo 'rm -rf is not allowed in this folder' >&2; exit 2; } || exit 0";
const HOOKS = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: GUARD, timeout: 10 }] }] } };
const REVIEW = '---\ndescription: Review a pull request\nargument-hint: [pr-number]\n---\nReview pull request $ARGUMENTS and list the risks.\n';

async function openSettings(page) {
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('region', { name: 'Hooks', exact: true }).waitFor();
}

test('project hooks wait for trust; the / palette sends a command; a trusted hook denies a call', async () => {
  const { page } = env.browser;
  // The model writes the hook and the command template into the session's folder.
  await env.fake.enqueue(
    {
      kind: 'text',
      text: '',
      calls: [
        { id: 'call_hooks', name: 'write_file', arguments: JSON.stringify({ path: '.loopdesk/hooks.json', content: JSON.stringify(HOOKS, null, 2) }) },
        { id: 'call_cmd', name: 'write_file', arguments: JSON.stringify({ path: '.claude/commands/review.md', content: REVIEW }) },
      ],
    },
    { kind: 'text', text: 'The folder has a guard hook and a /review command now.' },
  );
  await sendMessage(page, 'set up a guard hook and a review command');
  for (const id of ['call_hooks', 'call_cmd']) {
    await page.locator(`[data-call-id="${id}"]`).getByRole('button', { name: 'Approve', exact: true }).click();
  }
  await runFinished(page);

  // The window says so above the conversation, with the command.
  const banner = page.locator('.hooks-banner').getByRole('region', { name: 'This folder has hooks' });
  await banner.getByText(GUARD, { exact: true }).waitFor();
  await shot(page, 'ui-hooks-banner');

  // Settings → Hooks: the project hook is shown, untrusted, with a Trust button.
  await openSettings(page);
  const prompt = page.getByRole('region', { name: 'This folder has hooks' });
  await prompt.waitFor();
  await prompt.getByText(GUARD, { exact: true }).waitFor();
  await page.getByRole('region', { name: 'Hooks', exact: true }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await shot(page, 'ui-hooks-trust');
  await prompt.getByRole('button', { name: 'Trust' }).click();
  await page.getByRole('heading', { name: 'Project hooks (trusted)' }).waitFor();
  assert.equal(await prompt.count(), 0);
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  assert.equal(await page.getByRole('region', { name: 'This folder has hooks' }).count(), 0, 'the banner is gone once trusted');

  // The / palette lists the command; choosing it and sending sends the expanded template.
  await env.fake.enqueue(
    { kind: 'text', text: '', calls: [{ id: 'call_rm', name: 'run_shell_command', arguments: JSON.stringify({ command: 'rm -rf build' }) }] },
    { kind: 'text', text: 'The hook refused the deletion.' },
  );
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('/');
  const palette = page.getByRole('listbox', { name: 'Commands and skills' });
  await palette.getByRole('option', { name: /\/review \[pr-number\] command Review a pull request/ }).waitFor();
  await box.pressSequentially('rev');
  await shot(page, 'ui-slash-palette');
  await box.press('Enter');
  assert.equal(await box.inputValue(), '/review ');
  await box.pressSequentially('42');
  await box.press('Enter');
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'The hook refused the deletion.' }).waitFor();
  // The row says which command it came from.
  await page.getByRole('article', { name: 'You' }).filter({ hasText: 'Review pull request 42' }).getByText('/review', { exact: true }).waitFor();
  await runFinished(page);

  const reqs = await chatRequests(env.fake);
  const last = reqs[reqs.length - 2].messages; // the request that got the rm -rf call
  assert.equal(last[last.length - 1].content, 'Review pull request 42 and list the risks.');
  const final = reqs[reqs.length - 1].messages;
  const result = final.find((m) => m.role === 'tool' && m.tool_call_id === 'call_rm');
  assert.equal(result.content, 'denied by hook: rm -rf is not allowed in this folder');

  // The card says which hook denied the call and why; nobody was asked.
  const card = page.locator('[data-call-id="call_rm"]');
  await card.getByRole('list', { name: 'Hooks of this call' }).getByText(/PreToolUse hook .* \(exit 2, \d+ ms\): deny — rm -rf is not allowed in this folder/).waitFor();
  await card.getByText('Denied by a hook').waitFor();
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'ui-hooks-denied-card');
});
