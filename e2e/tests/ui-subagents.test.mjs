// Child sessions and the pinned plan in the window (issue 21): a task call's card shows its
// child live, the child's approval on a card labelled with the child's description and
// agent, "Open child session" opens it; the plan the model keeps is pinned above the message
// box and is still there after the app restarts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let env;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

/** Queues replies for the conversations whose first user message holds marker (fakeai routes). */
async function enqueueFor(marker, ...replies) {
  const control = env.fake.url.replace(/\/v1$/, '/_fake');
  const r = await fetch(`${control}/enqueue?for=${encodeURIComponent(marker)}`, { method: 'POST', body: JSON.stringify(replies) });
  if (!r.ok) throw new Error(`enqueue: ${r.status} ${await r.text()}`);
}

const plan = {
  explanation: 'delegate the writing',
  plan: [
    { step: 'ask a child to write notes.txt', status: 'in_progress' },
    { step: 'report back', status: 'pending' },
  ],
};

test('a child session: live card, labelled approval, open it; the plan pinned across a restart', async () => {
  let { page } = env.browser;
  await enqueueFor(
    '[parent]',
    {
      kind: 'text',
      calls: [
        { id: 'call_plan', name: 'update_plan', arguments: JSON.stringify(plan) },
        { id: 'call_task', name: 'task', arguments: JSON.stringify({ description: 'write the notes', prompt: '[child] write notes.txt', agent: 'explore' }) },
      ],
    },
    {
      kind: 'text',
      calls: [
        {
          id: 'call_plan2',
          name: 'update_plan',
          arguments: JSON.stringify({ plan: [{ step: 'ask a child to write notes.txt', status: 'completed' }, { step: 'report back', status: 'in_progress' }] }),
        },
      ],
    },
    { kind: 'text', text: 'The child could not write; it only explores.' },
  );
  await enqueueFor(
    '[child]',
    { kind: 'text', calls: [{ id: 'call_list', name: 'list_dir', arguments: '{}' }] },
    { kind: 'text', text: 'I looked around.' },
  );
  await sendMessage(page, '[parent] delegate the notes');

  // The explore agent's read-only list_dir asks in ask mode: on the parent's task card,
  // labelled with the child's description and agent, with the whole call.
  const approval = page.getByRole('group', { name: 'Approval for child write the notes (agent explore)' });
  await approval.waitFor();
  assert.match(await approval.textContent(), /list_dir/);
  // The plan is pinned above the message box while the child works.
  const pinned = page.getByRole('region', { name: 'Plan', exact: true });
  await pinned.getByLabel('ask a child to write notes.txt (in progress)').waitFor();
  await shot(page, 'subagents-01-child-approval');
  await approval.getByRole('button', { name: 'Approve' }).click();

  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'The child could not write' }).waitFor();
  await runFinished(page);
  const child = page.getByRole('group', { name: 'Child session: write the notes (agent explore)' });
  await child.getByText(/Child completed/).waitFor();
  // The plan followed the second update_plan call.
  await pinned.getByLabel('ask a child to write notes.txt (completed)').waitFor();
  await pinned.getByText('1/2 done').waitFor();
  // The session's totals count the child, with its share.
  await page.getByLabel('Session totals').getByText('incl. 1 child session').waitFor();
  assert.match(await child.textContent(), /1 tool call/);
  await shot(page, 'subagents-02-child-done');

  // The child opens like any session, listed under its parent.
  await child.getByRole('button', { name: 'Open child session' }).click();
  await page.getByRole('heading', { name: 'write the notes' }).waitFor();
  await page.getByText(/child of \[parent\] delegate the notes \(a task call\)/).waitFor();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'I looked around.' }).waitFor();
  await page.getByRole('navigation', { name: 'Sessions' }).getByText('child (task)').waitFor();
  await shot(page, 'subagents-03-child-open');

  // After a restart the parent's plan is still pinned.
  await env.restart();
  page = env.browser.page;
  await page.goto(env.app.url);
  const nav = page.getByRole('navigation', { name: 'Sessions' });
  await nav.getByRole('button', { name: /\[parent\] delegate the notes/ }).first().click();
  await page.getByRole('region', { name: 'Plan', exact: true }).getByLabel('report back (in progress)').waitFor();
  // The task card still opens its child after the restart.
  await page.getByRole('group', { name: 'Child session: write the notes (agent explore)' }).getByRole('button', { name: 'Open child session' }).click();
  await page.getByRole('heading', { name: 'write the notes' }).waitFor();
  await nav.getByRole('button', { name: /\[parent\] delegate the notes/ }).first().click();
  await page.getByRole('region', { name: 'Plan', exact: true }).waitFor();
  await shot(page, 'subagents-04-plan-after-restart');

  // The person edits the plan; the model reads the edit as Loopdesk's note at its next request.
  await page.getByRole('button', { name: 'Edit plan' }).click();
  await page.getByRole('textbox', { name: 'Step 2', exact: true }).fill('report back in one line');
  await page.getByRole('button', { name: 'Save plan' }).click();
  await page.getByRole('region', { name: 'Plan', exact: true }).getByText(/edited by you/).waitFor();
  await enqueueFor('[parent]', { kind: 'text', text: 'Noted.' });
  await sendMessage(page, 'go on');
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Noted.' }).waitFor();
  await runFinished(page);
  const reqs = (await env.fake.requests()).filter((r) => r.path.endsWith('/chat/completions'));
  const last = reqs.at(-1).body;
  assert.match(last, /loopdesk note/);
  assert.match(last, /report back in one line/);
  await page.getByRole('region', { name: 'Plan', exact: true }).getByLabel('report back in one line (in progress)').waitFor();
  assert.deepEqual(env.browser.consoleErrors, []);
});
