// The page driver of scripts/bench-many.sh, run in Loopdesk's real window by bench_hook.go
// (build tag bench): six agents at once for a while. Two sessions wait for approval (the
// person has the first open); four stream in the background, each started from the open
// session with "Run in a new session" (the person stays); when one of their runs ends (its
// turn limit), another new session takes its place, so four stream all along. Marks: "m<N>"
// once a minute (memory of the process tree, by the hook), "ref" at ref_s, "end" at
// seconds; then the four stop and the page idles ("idle_start" .. "idle_end", idle_s long,
// while the script measures the CPU); then every run stops and the window quits.
// window.__benchArgs: seconds, ref_s, idle_s, check_ms (how often the four are topped up).
(async () => {
  const args = window.__benchArgs || {};
  const seconds = args.seconds ?? 1200;
  const refS = args.ref_s ?? 120;
  const idleS = args.idle_s ?? 30;
  const checkMs = args.check_ms ?? 1000;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (what, f, ms = 60000) => {
    const t0 = performance.now();
    for (;;) {
      const v = await f();
      if (v) return v;
      if (performance.now() - t0 > ms) throw new Error('timed out waiting for ' + what);
      await sleep(100);
    }
  };
  let marks = 0;
  const mark = (label, data) => {
    marks++;
    window.runtime.EventsEmit('bench:mark', label, data ?? null);
  };
  const go = window.go.desktop;
  // What wakes the page while nothing streams (the idle_end mark's data): the timers and frames
  // that fire, the DOM changes by the class of what changed, the CSS animations that run.
  const woke = { timeouts: 0, intervals: 0, frames: 0, mutations: {}, events: {}, calls: {} };
  let idle = false;
  const tally = (into, k) => idle && (into[k] = (into[k] || 0) + 1);
  const notify = window.wails.EventsNotify;
  window.wails.EventsNotify = (msg) => {
    try { tally(woke.events, JSON.parse(msg).name); } catch { tally(woke.events, '?'); }
    return notify(msg);
  };
  const invoke = window.WailsInvoke;
  window.WailsInvoke = (msg) => {
    tally(woke.calls, (/"name":"([^"]+)"/.exec(msg) || [, msg.slice(0, 40)])[1]);
    return invoke(msg);
  };
  const counted = (name, kind) => {
    const orig = window[name].bind(window);
    window[name] = (cb, ...rest) => orig(typeof cb === 'function' ? (...a) => { if (idle) woke[kind]++; return cb(...a); } : cb, ...rest);
  };
  counted('setTimeout', 'timeouts');
  counted('setInterval', 'intervals');
  counted('requestAnimationFrame', 'frames');
  const changes = new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const k = el?.closest('[class]')?.className || el?.tagName || '?';
      woke.mutations[k] = (woke.mutations[k] || 0) + 1;
    }
  });
  const button = (root, name) => [...root.querySelectorAll('button')].find((b) => b.textContent.trim() === name || b.getAttribute('aria-label') === name);
  const sessionId = () => document.querySelector('main[data-session-id]')?.dataset.sessionId;
  const running = async () => new Map(((await go.Sessions.ListSessions()) || []).map((s) => [s.id, s.running]));
  const waitingCalls = async (id) => ((await go.Chat.PendingApprovals(id)) || []).length;

  try {
    // The first waiting session, as a person starts one: New session, a message, Enter.
    (await until('the New session button', () => button(document, 'New session'))).click();
    await until('the new session', () => sessionId());
    const box = await until('the message box', () => document.querySelector('textarea[aria-label="Message"]'));
    const type = (text) => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, text);
      box.dispatchEvent(new Event('input', { bubbles: true }));
    };
    type('wait-task one');
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    const w1 = sessionId();
    await until('the first call to wait', async () => (await waitingCalls(w1)) === 1);
    // The second, beside it: Ctrl+Shift+Enter in the message box.
    type('wait-task two');
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', shiftKey: true, ctrlKey: true, bubbles: true }));
    const list = await until('the second waiting session', async () => {
      const all = (await go.Sessions.ListSessions()) || [];
      return all.find((s) => s.title === 'wait-task two');
    });
    await until('the second call to wait', async () => (await waitingCalls(list.id)) === 1);

    // The four that stream: started beside the open session in the approval mode auto (the
    // new session takes the open one's; the open one's waiting call keeps its own).
    const streaming = new Set();
    let started = 0;
    const startOne = async () => {
      await go.Chat.SetMode(w1, 'execute', 'auto');
      try {
        const s = await go.Chat.RunInNewSession(w1, `stream-task ${++started}`);
        streaming.add(s.id);
      } finally {
        await go.Chat.SetMode(w1, 'execute', 'ask');
      }
    };
    for (let i = 0; i < 4; i++) await startOne();
    const t0 = performance.now();
    let minute = 0;
    let refDone = false;
    while ((performance.now() - t0) / 1000 < seconds) {
      await sleep(checkMs);
      const now = await running();
      for (const id of [...streaming]) {
        if (!now.get(id)) {
          streaming.delete(id);
          await startOne();
        }
      }
      const s = (performance.now() - t0) / 1000;
      if (!refDone && s >= refS) {
        refDone = true;
        mark('ref', { s: Math.round(s), started, open: sessionId() === w1 });
      }
      if (s >= (minute + 1) * 60) {
        minute++;
        mark(`m${minute}`, { s: Math.round(s), started });
      }
    }
    mark('end', { s: Math.round((performance.now() - t0) / 1000), started, open: sessionId() === w1 });
    // Nothing streaming: the four stop; the two keep waiting for the person.
    for (const id of streaming) await go.Chat.Cancel(id);
    await until('the four to stop', async () => {
      const now = await running();
      return [...streaming].every((id) => !now.get(id));
    });
    await sleep(3000);
    mark('idle_start', { waiting: (await waitingCalls(w1)) + (await waitingCalls(list.id)) });
    const animations = document.getAnimations().map((a) => a.effect?.target?.className || '?');
    changes.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    idle = true;
    await sleep(idleS * 1000 + 2000);
    idle = false;
    changes.disconnect();
    mark('idle_end', { ...woke, animations, rows: document.querySelectorAll('nav[aria-label="Sessions"] li').length });
    for (const id of [w1, list.id]) await go.Chat.Cancel(id);
    await until('every run to stop', async () => [...(await running()).values()].every((r) => !r));
  } catch (e) {
    mark('error', String(e && e.stack ? e.stack : e));
  }
  window.runtime.EventsEmit('bench:done', marks);
})();
