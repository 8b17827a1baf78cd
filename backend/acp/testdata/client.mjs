// The ACP client the Go tests drive `loopdesk acp` with: the real npm library
// (@agentclientprotocol/sdk 2.4.0, installed in ./npm by `make .stamps/npm-acp`).
//
// usage: node client.mjs PLAN.json
//
// The agent is on this process's stdin/stdout (the Go test wires the pipes). PLAN is
//   {"log": FILE, "answers": ["allow_once", ...], "steps": [...]}
// and every step's outcome, every session/update and every permission request is appended to
// FILE as one JSON object per line ({"ev": ..., "ms": since start}), so the test can follow
// along while this runs. Steps:
//   {"op": "initialize", "clientInfo": {name, version}}    clientInfo optional
//   {"op": "new", "cwd": DIR, "mcpServers": [...]}       remembers the session id
//   {"op": "load", "sessionId": ID, "cwd": DIR}             (and "resume", the same way)
//   {"op": "prompt", "text": T, "images": [{data, mimeType}]} images: image blocks after the text
//   {"op": "prompt", "text": T, "cancelOn": "in_progress"} cancelOn: send session/cancel
//                                                        once a call reports that status, or
//                                                        ("text:S") shows content with S
//   {"op": "prompt", "text": T, "async": true}            sent without waiting: its outcome is
//                                                        logged when it comes ("settle" waits)
//   {"op": "waitUpdate", "status": "in_progress"}         until a call reports that status
//   {"op": "settle"}                                     until every async prompt has its outcome
//   {"op": "mode", "modeId": "plan"}
//   {"op": "request", "method": M, "params": P}          any request; logs result or error
//   {"op": "waitPermission"}                             until a permission request has come
//   {"op": "pause", "ms": N}                             N ms: only to show that something does
//                                                        NOT happen within a bound
//   {"op": "cancel"}                                     session/cancel for the session
//   {"op": "hang"}                                       wait to be killed
// Permission requests take the next of "answers"; "never" (or none left) never answers,
// "throw" answers with a JSON-RPC error. A request the agent withdraws ($/cancel_request) is
// logged as "withdrawn".
import { appendFileSync, readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream } from './npm/node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const start = performance.now();
const log = (ev, fields) => appendFileSync(plan.log, JSON.stringify({ ev, ms: performance.now() - start, ...fields }) + '\n');
const answers = [...(plan.answers ?? [])];
const state = { sessionId: '', cancelOn: '', cancelled: false, agent: null, pending: [], statuses: [], waiters: [], asked: 0, askWaiters: [] };

const app = client({ name: 'loopdesk-acp-test' })
  .onNotification('session/update', ({ params }) => {
    log('update', { sessionId: params.sessionId, update: params.update });
    const u = params.update;
    if (u.sessionUpdate === 'tool_call_update' && u.status) {
      state.statuses.push(u.status);
      state.waiters = state.waiters.filter((w) => !w(u.status));
    }
    const hit = state.cancelOn.startsWith('text:')
      ? JSON.stringify(u.content ?? '').includes(state.cancelOn.slice(5))
      : u.status === state.cancelOn;
    if (state.cancelOn && !state.cancelled && u.sessionUpdate === 'tool_call_update' && hit) {
      state.cancelled = true;
      log('cancel', {});
      state.agent.notify('session/cancel', { sessionId: params.sessionId });
    }
  })
  .onRequest('session/request_permission', ({ params, signal }) => {
    const answer = answers.shift() ?? 'never';
    state.asked++;
    state.askWaiters.splice(0).forEach((w) => w());
    log('permission', { toolCall: params.toolCall, options: params.options, answer });
    signal?.addEventListener('abort', () => log('withdrawn', { toolCall: params.toolCall }));
    if (answer === 'never') return new Promise(() => {});
    if (answer === 'throw') throw new Error('this client cannot show a dialog');
    return { outcome: { outcome: 'selected', optionId: answer } };
  });

const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));

async function step(agent, s) {
  switch (s.op) {
    case 'initialize':
      return agent.request('initialize', { protocolVersion: 1, clientCapabilities: {}, ...(s.clientInfo ? { clientInfo: s.clientInfo } : {}) });
    case 'new': {
      const r = await agent.request('session/new', { cwd: s.cwd, mcpServers: s.mcpServers ?? [] });
      state.sessionId = r.sessionId;
      return r;
    }
    case 'load':
      state.sessionId = s.sessionId;
      return agent.request('session/load', { sessionId: s.sessionId, cwd: s.cwd, mcpServers: [] });
    case 'resume':
      state.sessionId = s.sessionId;
      return agent.request('session/resume', { sessionId: s.sessionId, cwd: s.cwd });
    case 'prompt': {
      state.cancelOn = s.cancelOn ?? '';
      state.cancelled = false;
      const blocks = [{ type: 'text', text: s.text }, ...(s.images ?? []).map((im) => ({ type: 'image', data: im.data, mimeType: im.mimeType }))];
      const req = agent.request('session/prompt', { sessionId: state.sessionId, prompt: blocks });
      if (!s.async) return req;
      state.pending.push(req.then((result) => log('result', { op: 'prompt', text: s.text, result }),
        (err) => log('error', { op: 'prompt', text: s.text, code: err.code, message: err.message })));
      return { sent: true };
    }
    case 'waitUpdate':
      if (state.statuses.includes(s.status)) return null;
      return new Promise((resolve) => state.waiters.push((st) => st === s.status && (resolve(null), true)));
    case 'settle':
      return Promise.all(state.pending);
    case 'mode':
      return agent.request('session/set_mode', { sessionId: state.sessionId, modeId: s.modeId });
    case 'request':
      return agent.request(s.method, s.params);
    case 'waitPermission':
      if (state.asked > 0) return null;
      return new Promise((resolve) => state.askWaiters.push(() => resolve(null)));
    case 'pause':
      return new Promise((resolve) => setTimeout(() => resolve(null), s.ms));
    case 'cancel':
      log('cancel', {});
      return state.agent.notify('session/cancel', { sessionId: state.sessionId });
    case 'hang':
      log('hanging', {});
      return new Promise(() => {});
  }
  throw new Error(`unknown step ${s.op}`);
}

await app.connectWith(stream, async (agent) => {
  state.agent = agent;
  for (const s of plan.steps) {
    log('send', { op: s.op });
    try {
      log('result', { op: s.op, result: (await step(agent, s)) ?? null });
    } catch (err) {
      log('error', { op: s.op, code: err.code, message: err.message, data: err.data });
    }
  }
});
log('done', {});
process.exit(0);
