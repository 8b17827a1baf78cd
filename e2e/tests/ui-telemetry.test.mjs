// Settings → Telemetry in the window: off by default; the person points it at a collector (an
// OTLP/HTTP endpoint on loopback that keeps what it is sent), saves, and the next run arrives
// there as an invoke_agent span with its chat spans; the section then says how many spans went.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { runFinished, sendMessage, shot, startAll } from '../harness.mjs';

let env;
let collector;
const received = [];

before(async () => {
  collector = createServer((req, res) => {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      received.push({ path: req.url, type: req.headers['content-type'], team: req.headers['x-team'], body: Buffer.concat(parts) });
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise((resolve) => collector.listen(0, '127.0.0.1', resolve));
  env = await startAll({ configured: true });
});

after(async () => {
  await env?.stop();
  collector?.close();
});

async function openTelemetry(page) {
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('region', { name: 'Settings' }).waitFor();
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Telemetry', exact: true }).click();
  const section = page.getByRole('region', { name: 'Telemetry' });
  await section.waitFor();
  await section.scrollIntoViewIfNeeded();
  return section;
}

test('a run reaches the collector Settings → Telemetry names', async () => {
  const { page } = env.browser;
  let section = await openTelemetry(page);
  await section.getByRole('status').filter({ hasText: 'Off.' }).waitFor();
  await section.getByRole('checkbox', { name: 'Send runs to a collector' }).check();
  await section.getByLabel('Endpoint').fill(`http://127.0.0.1:${collector.address().port}`);
  await section.getByLabel('Headers').fill('x-team=e2e-secret');
  await section.getByRole('button', { name: 'Save telemetry' }).click();
  await section.getByText('Saved.').waitFor();
  await shot(page, 'ui-telemetry-settings');
  await page.getByRole('button', { name: 'Close', exact: true }).click();

  await env.fake.enqueue({ kind: 'text', text: 'Hello from the traced run.' });
  await sendMessage(page, 'say hello');
  await runFinished(page);
  // Sent on its own goroutine once the run's rows are stored: poll the collector.
  const deadline = Date.now() + 20000;
  while (!received.some((r) => r.path === '/v1/traces') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const traces = received.filter((r) => r.path === '/v1/traces');
  assert.equal(traces.length, 1, `the collector got ${JSON.stringify(received.map((r) => r.path))}`);
  assert.equal(traces[0].type, 'application/x-protobuf');
  assert.equal(traces[0].team, 'e2e-secret');
  assert.ok(traces[0].body.includes('invoke_agent loopdesk') && traces[0].body.includes('chat '), 'an invoke_agent span and a chat span');
  assert.ok(!traces[0].body.includes('say hello'), 'contents stay out unless Include contents is on');

  section = await openTelemetry(page);
  await section.getByRole('status').filter({ hasText: /^Sending: 2 spans sent\.$/ }).waitFor();
  assert.equal(await section.getByLabel('Headers').inputValue(), '', 'the headers are never shown back');
  await shot(page, 'ui-telemetry-sending');
});
