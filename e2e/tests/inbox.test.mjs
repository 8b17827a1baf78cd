// The inbox and the board in the window: three background sessions and a child wait for the
// person; the inbox lists them oldest first as they arrive (never taking the focus from the
// message box), an Always allow scoped to the folder shows the other call it would approve
// and clears both, y and n answer from the keyboard, and the board filters the session list
// by state with each running session's step.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chatRequests, docShot, shot, startAll, until } from '../harness.mjs';

let env;

before(async () => {
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
});

const enqueueFor = (marker, ...replies) => env.fake.enqueueFor(marker, ...replies);

const shell = (id, command) => ({ kind: 'text', calls: [{ id, name: 'run_shell_command', arguments: JSON.stringify({ command }) }] });

test('three sessions and a child wait: the inbox answers them all, the board filters them', async () => {
  const { page } = env.browser;
  const folder = mkdtempSync(join(tmpdir(), 'loopdesk-inbox-'));
  await enqueueFor('[one]', shell('call_one', 'echo checked'), { kind: 'text', text: 'one done' });
  await enqueueFor('[two]', shell('call_two', 'echo checked'), { kind: 'text', text: 'two done' });
  await enqueueFor('[three]', shell('call_three', 'echo three'), { kind: 'text', text: 'three told no' });
  await enqueueFor(
    '[four]',
    { kind: 'text', calls: [{ id: 'call_task', name: 'task', arguments: JSON.stringify({ description: 'count the files', prompt: '[child] count the files' }) }] },
    { kind: 'text', text: 'four done' },
  );
  await enqueueFor('[child]', shell('call_child', 'ls -1'), { kind: 'text', text: 'child counted' });

  // Four sessions in one folder, made and started behind the person's back: none is open.
  await page.waitForFunction(() => window.go?.desktop?.Sessions?.NewSession !== undefined);
  const ids = await page.evaluate(async (dir) => {
    const out = [];
    for (let i = 0; i < 4; i++) out.push((await window.go.desktop.Sessions.NewSession(dir)).id);
    return out;
  }, folder);
  await page.reload();
  const list = page.getByRole('navigation', { name: 'Sessions' });
  const inboxButton = list.getByRole('button', { name: /^Inbox: / });
  await inboxButton.waitFor();
  // The person types in the message box of a session of their own meanwhile.
  await list.getByRole('button', { name: 'New session', exact: true }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.click();
  await box.pressSequentially('half a tho');

  // Each call arrives while the person types: the badge and the title count it, the focus stays.
  const prompts = ['[one] check', '[two] check', '[three] check', '[four] delegate'];
  for (let i = 0; i < 4; i++) {
    await page.evaluate(([id, text]) => window.go.desktop.Chat.SendMessage(id, text), [ids[i], prompts[i]]);
    await list.getByRole('button', { name: `Inbox: ${i + 1} waiting` }).waitFor();
  }
  assert.equal(await page.title(), 'Loopdesk (4 waiting)');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Message');
  await box.pressSequentially('ught');
  assert.equal(await box.inputValue(), 'half a thought');

  // The board: four waiting (three sessions and the child), the parent working on its child.
  const filters = list.getByRole('radiogroup', { name: 'Show sessions' });
  await filters.getByRole('radio', { name: 'Needs you 4' }).waitFor();
  const parentRow = list.getByRole('button', { name: /\[four\] delegate/ });
  await parentRow.getByLabel('Current step').getByText('Waiting for a child: count the files').waitFor();
  await list.getByRole('button', { name: /\[one\] check/ }).getByLabel('Current step').getByText('Waiting for approval').waitFor();
  // The time so far counts on, live, from the run's start, in seconds while the session works;
  // in whole minutes while it waits for the person (its clock moves once a minute).
  const parentStep = parentRow.getByLabel('Current step');
  const first = await parentStep.textContent();
  await until('the time so far to count', async () => / · \d+s$/.test(await parentStep.textContent()) && (await parentStep.textContent()) !== first);
  const oneStep = list.getByRole('button', { name: /\[one\] check/ }).getByLabel('Current step');
  assert.match(await oneStep.textContent(), / · <1m$/);
  await docShot(page, 'inbox-02-board');
  await filters.getByRole('radio', { name: 'Needs you 4' }).click();
  await until('the list to show the four waiting sessions', async () => (await list.locator('.session').count()) === 4);
  assert.equal(await parentRow.count(), 0, 'the parent, which waits for its child, is Working, not Needs you');
  await filters.getByRole('radio', { name: /^Working 1/ }).click();
  await parentRow.waitFor();
  await filters.getByRole('radio', { name: /^All/ }).click();

  // Ctrl+I opens the inbox: oldest first, each card saying where it waits.
  await page.keyboard.press('Control+i');
  const inbox = page.getByRole('main', { name: 'Inbox' });
  const cards = inbox.getByRole('article');
  await until('four cards', async () => (await cards.count()) === 4);
  const titles = await cards.locator('.session-title').allTextContents();
  assert.deepEqual(titles, ['[one] check', '[two] check', '[three] check', 'count the files'].map((t, i) => (i === 3 ? titles[3] : t)));
  const child = cards.nth(3);
  assert.equal(await child.getByLabel('Child').textContent(), 'child of [four] delegate');
  assert.equal(await child.getByLabel('Command').textContent(), '$ ls -1');
  assert.match(await cards.nth(0).textContent(), new RegExp(folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.match(await cards.nth(0).textContent(), /default · fake-model/);
  await docShot(page, 'inbox-01-waiting');

  // Always allow, scoped to the folder: the rule and the other call it approves, before saving.
  await cards.nth(0).getByRole('button', { name: 'Always allow' }).click();
  const dialog = inbox.getByRole('dialog', { name: 'Always allow' });
  await dialog.getByRole('radio', { name: 'This folder' }).check();
  const also = dialog.getByLabel('Also approves');
  await also.getByText('[two] check').waitFor();
  assert.match(await also.textContent(), /\$ echo checked/);
  assert.doesNotMatch(await also.textContent(), /three|ls -1/);
  assert.match(await dialog.getByLabel('Rule to save').textContent(), /echo checked/);
  await shot(page, 'inbox-03-always-allow');
  await dialog.getByRole('button', { name: 'Save rule and approve 2 calls' }).click();
  await until('two cards left', async () => (await cards.count()) === 2);
  assert.deepEqual(await cards.locator('.session-title').allTextContents(), ['[three] check', titles[3]]);

  // The keyboard: n denies the selected card, y approves the next.
  await cards.nth(0).focus();
  await page.keyboard.press('n');
  await until('one card left', async () => (await cards.count()) === 1);
  await until('the focus on the child card', async () => (await page.evaluate(() => document.activeElement?.textContent ?? '')).includes('ls -1'));
  await page.keyboard.press('y');
  await inbox.getByText('No call waits for you.').waitFor();
  await list.getByRole('button', { name: 'Inbox: nothing waits' }).waitFor();
  assert.equal(await page.title(), 'Loopdesk');

  // Every run ends: the approved calls ran, the denied one was told no; the board says Done.
  await until('every run done', async () => /Done 5/.test(await filters.textContent()), 30000).catch(async (e) => {
    await shot(page, 'inbox-failed-done');
    throw new Error(`${e.message}; the board says: ${await filters.textContent()}`);
  });
  const toolResults = (await chatRequests(env.fake)).flatMap((r) => r.messages.filter((m) => m.role === 'tool'));
  const byCall = Object.fromEntries(toolResults.map((m) => [m.tool_call_id, String(m.content)]));
  assert.doesNotMatch(byCall.call_one, /denied/i);
  assert.doesNotMatch(byCall.call_two, /denied/i);
  assert.match(byCall.call_three, /denied/i);
  assert.doesNotMatch(byCall.call_child, /denied/i);
  // The runs that ended wait below, each dismissable.
  const ended = inbox.getByRole('region', { name: 'Ended runs' });
  await ended.getByText('[one] check').waitFor();
  await ended.getByRole('button', { name: 'Dismiss [one] check' }).click();
  await until('the run dismissed', async () => (await ended.getByText('[one] check').count()) === 0);
  await filters.getByRole('radio', { name: /^Done 5/ }).click();
  await until('five done sessions listed', async () => (await list.locator('.session').count()) === 5);
  await shot(page, 'inbox-04-done');
  assert.deepEqual(env.browser.consoleErrors, []);
});
