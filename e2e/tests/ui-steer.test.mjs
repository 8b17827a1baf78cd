// Steering a run in the window: a message sent while a run waits is queued
// (visible, removable) and reaches the model after the turn's results; plan mode refuses a
// write and "Execute plan" carries it out; a session that hit the context limit runs again
// and completes, with the exchange that did not fit set aside as a visible row.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chatRequests, docShot, newSession, runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let fake, browser, env;

before(async () => {
  env = await startAll({ configured: true });
  ({ fake, browser } = env);
});

after(async () => {
  await env?.stop();
});

const card = (page, tool) => page.getByRole('region', { name: `Tool call ${tool}` });

test('a message sent during a run is queued, removable, and delivered after the results', async () => {
  const { page } = browser;
  await newSession(page);
  await fake.enqueue(
    { kind: 'text', text: 'Let me look.', calls: [{ id: 'call_l', name: 'list_dir', arguments: JSON.stringify({ path: '.' }) }] },
    { kind: 'text', text: 'The folder is empty, so there is nothing to count.' },
  );
  await sendMessage(page, 'what is in this folder?');
  const list = card(page, 'list_dir');
  await list.getByRole('button', { name: 'Approve', exact: true }).waitFor();

  // The box stays usable while the run waits: Enter queues.
  await sendMessage(page, 'and count the files too');
  await sendMessage(page, 'never mind this one');
  const queued = page.getByRole('list', { name: 'Queued messages' });
  await queued.getByText('never mind this one').waitFor();
  await queued.getByText('and count the files too').waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor();
  await docShot(page, 'queued-message');

  await page.getByRole('button', { name: 'Remove queued message: never mind this one' }).click();
  await queued.getByText('never mind this one').waitFor({ state: 'detached' });
  await list.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'nothing to count' }).waitFor();
  await runFinished(page);
  await queued.waitFor({ state: 'detached' });

  const last = (await chatRequests(fake)).at(-1).messages;
  assert.equal(last.at(-1).role, 'user');
  assert.equal(last.at(-1).content, 'and count the files too');
  assert.equal(last.at(-2).role, 'tool', 'the queued message comes after the result');
  assert.ok(!last.some((m) => m.content === 'never mind this one'), 'a removed message never reaches the model');
  assert.deepEqual(browser.consoleErrors, []);
});

test('plan mode refuses a write; Execute plan runs it with the approval mode picked', async () => {
  const { page } = browser;
  await newSession(page);
  await page.getByRole('combobox', { name: 'Session mode' }).selectOption('plan');
  await page.getByLabel('Mode: plan').waitFor();
  const write = { id: 'call_p', name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'planned\n' }) };
  await fake.enqueue(
    { kind: 'text', text: 'Checking.', calls: [write] },
    { kind: 'text', text: 'Plan:\n1. Create notes.txt with the word "planned".' },
  );
  await sendMessage(page, 'create notes.txt');
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Plan:' }).waitFor();
  await runFinished(page);
  await card(page, 'write_file').getByText(/plan mode/).first().waitFor();
  const reqs = await chatRequests(fake);
  assert.match(reqs.at(-1).messages[0].content, /plan mode/, 'the model is told it is planning');
  await page.getByText('last run: plan').waitFor();
  await docShot(page, 'plan-mode');

  await page.getByRole('combobox', { name: 'Approval mode for the plan' }).selectOption('auto');
  await fake.enqueue({ kind: 'text', text: '', calls: [{ ...write, id: 'call_x' }] }, { kind: 'text', text: 'Created notes.txt.' });
  await page.getByRole('button', { name: 'Execute plan' }).click();
  await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Created notes.txt.' }).waitFor();
  await runFinished(page);
  await page.getByLabel('Mode: execute').waitFor();
  await page.getByText('last run: execute').waitFor();
  const exec = (await chatRequests(fake)).at(-1).messages;
  const result = exec.find((m) => m.role === 'tool' && m.tool_call_id === 'call_x');
  assert.ok(result && !/plan mode|denied/i.test(result.content), `the write ran: ${result?.content}`);
  await page.getByLabel('Session totals').getByText(/2 runs · 4 turns · 2 tool calls/).waitFor();
  assert.deepEqual(browser.consoleErrors, []);
});

test('a session that hit the context limit runs again and completes', async () => {
  const { page } = browser;
  await newSession(page);
  const control = fake.url.replace(/\/v1$/, '/_fake');
  await fetch(`${control}/context_limit`, { method: 'POST', body: JSON.stringify({ tokens: 2500 }) });
  try {
    const big = 'x'.repeat(12000);
    await fake.enqueue({ kind: 'text', text: '', calls: [{ id: 'call_big', name: 'write_file', arguments: JSON.stringify({ path: 'big.txt', content: big }) }] });
    await sendMessage(page, 'write a big file');
    await card(page, 'write_file').getByRole('button', { name: 'Approve', exact: true }).click();
    await runFinished(page);
    await page.getByText(/context_exceeded|context window/i).first().waitFor();

    await fake.enqueue({ kind: 'text', text: 'Continuing without the big file.' });
    await sendMessage(page, 'continue');
    await page.getByRole('article', { name: 'Assistant', exact: true }).filter({ hasText: 'Continuing without the big file.' }).waitFor();
    await runFinished(page);
    await page.getByText(/were set aside/).waitFor();
    await shot(page, 'context-limit-recovered');
    const last = (await chatRequests(fake)).at(-1).messages;
    assert.equal(last.at(-1).content, 'continue');
    assert.ok(!JSON.stringify(last).includes(big), 'the exchange that did not fit is set aside');
    // Every call is answered: the write has its one result row.
    assert.deepEqual(browser.consoleErrors, []);
  } finally {
    await fetch(`${control}/context_limit`, { method: 'POST', body: JSON.stringify({ tokens: 0 }) });
  }
});
