// A crash in the middle of a run loses nothing and leaves the session usable:
// the app is killed with SIGKILL while an approved shell command runs; after a
// restart the call shows a visible "interrupted" result, and the next message
// goes out with every call paired with exactly one result.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chatRequests, runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let fake, app, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, app, browser } = env);
});

after(async () => {
  await env?.stop();
});

test('a session killed mid-run is repaired visibly and can be continued', async () => {
  const { page } = browser;
  await fake.enqueue({
    kind: 'text',
    text: 'Running the slow step.',
    calls: [{ id: 'call_slow', name: 'run_shell_command', arguments: JSON.stringify({ command: 'echo started; sleep 3' }) }],
  });
  await sendMessage(page, 'run the slow step');
  const card = page.getByRole('region', { name: 'Tool call run_shell_command' });
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await card.getByText('started').first().waitFor(); // the command is running: its output streamed in

  app = await env.restart({ kill: true });
  await page.goto(app.url);
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /run the slow step/ }).click();
  // Every row written before the kill is there, and the repair is a visible row.
  await page.getByRole('article', { name: 'You' }).filter({ hasText: 'run the slow step' }).waitFor();
  await page.getByRole('region', { name: 'Tool call run_shell_command' }).getByText(/interrupted/).first().waitFor();
  await shot(page, 'crash-repaired');

  await sendMessage(page, 'carry on');
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'You said: carry on' }).waitFor();
  await runFinished(page);
  const last = (await chatRequests(fake)).at(-1);
  const calls = last.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
  const results = last.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
  assert.deepEqual(calls, ['call_slow']);
  assert.deepEqual(results, ['call_slow'], 'the interrupted call has exactly one result');
  assert.match(last.messages.find((m) => m.role === 'tool').content, /interrupted/);
});
