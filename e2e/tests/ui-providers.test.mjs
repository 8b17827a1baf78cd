// Providers in the window: Settings adds a provider to providers.json (Test connection fills
// its model list), and a session's header shows and changes the provider and model its next
// run uses; the run goes to that provider and its row records it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chatRequests, newSession, runFinished, sendMessage, shot, startAll, startFake, until } from '../harness.mjs';

let env, local;

before(async () => {
  local = await startFake();
  env = await startAll({ configured: true });
}, { timeout: 120000 });

after(async () => {
  await local?.stop();
  await env?.stop();
});

test('a provider added in Settings serves the session whose header chose it', { timeout: 180000 }, async () => {
  const { page } = env.browser;
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  const section = page.getByRole('region', { name: 'Providers' });
  await section.getByRole('listitem', { name: 'Provider default' }).waitFor();
  await section.getByRole('button', { name: 'Add provider' }).click();
  const form = section.getByRole('form', { name: 'New provider' });
  await form.getByRole('textbox', { name: 'Name' }).fill('local');
  await form.getByRole('textbox', { name: 'Provider base URL' }).fill(local.url);
  await form.getByRole('textbox', { name: 'Key environment variable' }).fill('LOCAL_KEY');
  await form.getByRole('button', { name: 'Add' }).click();
  const item = section.getByRole('listitem', { name: 'Provider local' });
  await item.getByRole('button', { name: 'Test local connection' }).click();
  await item.getByText(/Connected: \d+ model/).waitFor();
  await item.getByText(/Models: fake-model/).waitFor();
  await section.getByRole('button', { name: 'Save providers' }).click();
  await section.getByRole('status').filter({ hasText: 'Providers saved.' }).waitFor();
  await item.getByText('key from $LOCAL_KEY (not set)').waitFor();
  await section.scrollIntoViewIfNeeded();
  await shot(page, 'providers-settings');
  const file = JSON.parse(readFileSync(join(env.home.config, 'loopdesk', 'providers.json'), 'utf8'));
  assert.deepEqual(file, {
    providers: [{ name: 'local', kind: 'openai', base_url: local.url, api_key_env: 'LOCAL_KEY', models: ['fake-model'] }],
  });
  await page.getByRole('button', { name: 'Close', exact: true }).click();

  await newSession(page);
  const choice = page.getByRole('button', { name: /Provider and model of the next run: default · fake-model/ });
  await choice.waitFor();
  await choice.click();
  await page.getByRole('combobox', { name: 'Session provider' }).selectOption('local');
  await page.getByRole('combobox', { name: 'Session model' }).fill('local-model');
  await shot(page, 'providers-session-chooser');
  await page.getByRole('button', { name: 'Use for the next run' }).click();
  await page.getByRole('button', { name: /Provider and model of the next run: local · local-model/ }).waitFor();
  await shot(page, 'providers-session-header');

  const before = (await chatRequests(env.fake)).length;
  await sendMessage(page, 'hello local');
  await page.getByRole('article', { name: 'Assistant' }).filter({ hasText: 'You said: hello local' }).waitFor();
  await runFinished(page);
  const sent = await chatRequests(local);
  assert.equal(sent.length, 1, 'the run went to the chosen provider');
  assert.equal(sent[0].model, 'local-model');
  assert.equal((await chatRequests(env.fake)).length, before, 'the default provider got nothing');

  const id = await page.locator('main[data-session-id]').getAttribute('data-session-id');
  const runs = await page.evaluate((sid) => window.go.desktop.Sessions.Runs(sid), id);
  assert.deepEqual(runs.map((r) => [r.provider, r.model]), [['local', 'local-model']]);
  // Still what the next run uses after the run, and after a reload (once the window has saved
  // this session as the one to reopen: it saves its state after a short pause).
  await until('the open session saved', async () => (await page.evaluate(() => window.go.desktop.Window.UIState())).last_session === id);
  await page.reload();
  await page.getByRole('button', { name: /Provider and model of the next run: local · local-model/ }).waitFor();
  assert.deepEqual(env.browser.consoleErrors, []);
});
