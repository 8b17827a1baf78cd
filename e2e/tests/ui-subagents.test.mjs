// Child sessions and the pinned plan in the window: a task call's card shows its
// child live, the child's approval on a card labelled with the child's description and
// agent, "Open child session" opens it; the plan the model keeps is pinned above the message
// box and is still there after the app restarts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newSession, runFinished, sendMessage, shot, startAll, until } from '../harness.mjs';

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
  await page.getByText(/child of \[parent\] delegate the notes \(task call at #2\)/).waitFor();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'I looked around.' }).waitFor();
  // Under the parent's row 2, the assistant turn holding its task call.
  await page.getByRole('navigation', { name: 'Sessions' }).getByText('task @#2').waitFor();
  await shot(page, 'subagents-03-child-open');

  // After a restart the parent's plan is still pinned.
  await env.restart();
  page = env.browser.page;
  await page.goto(env.app.url);
  const nav = page.getByRole('navigation', { name: 'Sessions' });
  await nav.getByRole('button', { name: /\[parent\] delegate the notes/ }).first().click();
  await page.getByRole('region', { name: 'Plan', exact: true }).getByLabel('report back (in progress)').waitFor();
  // The task card, rebuilt from the journal after the restart, shows how the child ended and opens it.
  const card = page.getByRole('group', { name: 'Child session: write the notes (agent explore)' });
  await card.getByText('Child completed').waitFor();
  assert.match(await card.textContent(), /1 tool call/);
  await card.getByRole('button', { name: 'Open child session' }).click();
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

/** Reloads the page once the window has saved the open session as the one to reopen. */
async function reloadKeeping(page) {
  const id = await page.locator('main[data-session-id]').getAttribute('data-session-id');
  await until('the open session saved', async () => (await page.evaluate(() => window.go.desktop.Window.UIState())).last_session === id);
  await page.reload();
  await page.locator(`main[data-session-id="${id}"]`).waitFor();
  return id;
}

test('the task card survives a reload while the child waits and after; the chunk table links call and child', async () => {
  const { page } = env.browser;
  await newSession(page);
  await enqueueFor(
    '[reload-parent]',
    { kind: 'text', calls: [{ id: 'call_scan', name: 'task', arguments: JSON.stringify({ description: 'scan the folder', prompt: '[reload-child] scan' }) }] },
    { kind: 'text', text: 'Scanned.' },
  );
  await enqueueFor(
    '[reload-child]',
    { kind: 'text', calls: [{ id: 'call_ls', name: 'list_dir', arguments: '{}' }] },
    { kind: 'text', text: 'Looked at it.' },
  );
  await sendMessage(page, '[reload-parent] scan it');
  await page.getByRole('group', { name: 'Approval for child scan the folder' }).waitFor();
  const status = page.getByRole('status', { name: 'Run status' });

  // Reloaded while the child waits for the person: the card comes back from the journal,
  // with what the child is doing and its approval, which still works.
  const parent = await reloadKeeping(page);
  const card = page.getByRole('group', { name: 'Child session: scan the folder' });
  await card.getByText('Child: waiting for your approval of list_dir').waitFor();
  await page.getByText('Running child session').waitFor(); // the task call's own status
  // The parent's status line says its task call runs (Chat.Live lists the running call: its
  // tool_started went by before the reload), never "Waiting for the model…", and no empty
  // reply bubble waits for the model.
  await until('the status line names the running task', async () => /Running task for \d/.test(await status.textContent()));
  assert.doesNotMatch(await status.textContent(), /Waiting for the model/);
  assert.equal(await page.getByRole('article', { name: 'Assistant reply (streaming)' }).count(), 0);
  assert.match(await card.textContent(), /1 tool call/);
  const approval = card.getByRole('group', { name: 'Approval for child scan the folder' });
  assert.match(await approval.textContent(), /list_dir/);
  await shot(page, 'subagents-05-card-after-reload');
  await approval.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Scanned.' }).waitFor();
  await runFinished(page);
  await card.getByText('Child completed').waitFor();

  // Reloaded after: the card still says how it ended and what it used.
  await reloadKeeping(page);
  await card.getByText('Child completed').waitFor();
  assert.match(await card.textContent(), /1 tool call · \d+ tokens/);

  // The chunk table: the call's row opens the child; the child's table leads back to that row.
  await page.getByRole('tab', { name: 'Chunks' }).click();
  const table = page.getByRole('table', { name: 'Chunk table' });
  const toChild = table.getByRole('button', { name: 'Open child session scan the folder' });
  await toChild.first().waitFor();
  assert.equal(await toChild.count(), 2); // the call's row and its result's row
  await shot(page, 'subagents-06-chunk-table-child-link');
  await toChild.first().click();
  await page.getByRole('heading', { name: 'scan the folder' }).waitFor();
  await page.getByRole('tab', { name: 'Chunks' }).click();
  const back = page.getByRole('button', { name: /Started by task call call_scan \(row #2\) of \[reload-parent\] scan it/ });
  await back.waitFor();
  await shot(page, 'subagents-07-child-chunk-table-back-link');
  await back.click();
  await page.locator(`main[data-session-id="${parent}"]`).waitFor();
  await page.getByRole('region', { name: 'Row 2' }).waitFor();
  assert.deepEqual(env.browser.consoleErrors, []);
});
