// The page driver of scripts/bench-memory.sh, run in Loopdesk's real window by bench_hook.go
// (build tag bench). It does what a person does (clicks, typing) and emits "bench:mark" at each
// measuring point; Go then records the memory of the process tree. Approvals are set to auto:
// the bench measures streaming, not a person clicking Approve. window.__benchArgs:
//   scenario: "memory" | "frames" | "speed"; idle_ms: how long to idle before a memory mark;
//   repeats: how many long sessions stream in, one after the other (memory, default 1);
//   seconds: how long each frame count lasts (frames); tries: how many times each thing is
//   timed (speed).
(async () => {
  const args = window.__benchArgs || {};
  const idle = args.idle_ms ?? 8000;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (what, f, ms = 60000) => {
    const t0 = performance.now();
    for (;;) {
      const v = f();
      if (v) return v;
      if (performance.now() - t0 > ms) throw new Error('timed out waiting for ' + what);
      await sleep(50);
    }
  };
  let marks = 0;
  const mark = (label, data) => {
    marks++;
    window.runtime.EventsEmit('bench:mark', label, data ?? null);
  };
  const button = (root, name) => [...root.querySelectorAll('button')].find((b) => b.textContent.trim() === name || b.getAttribute('aria-label') === name);
  const sessionId = () => document.querySelector('main[data-session-id]')?.dataset.sessionId;
  const heading = (title) => [...document.querySelectorAll('h1, h2')].some((h) => h.textContent.includes(title));

  async function openSession(title) {
    const nav = await until('the sessions list', () => document.querySelector('nav[aria-label="Sessions"]'));
    const b = await until('session ' + title, () => [...nav.querySelectorAll('button')].find((x) => x.textContent.includes(title)));
    b.click();
    await until('heading ' + title, () => heading(title));
  }
  async function newSession() {
    const before = sessionId();
    // The page's app starts after its first frame (frontend/src/boot.ts): wait for it as a
    // person waits for the button to be there.
    (await until('the New session button', () => button(document, 'New session'))).click();
    await until('the new session', () => sessionId() && sessionId() !== before && heading('New session'));
  }
  // Types text into the message box as React sees typing, then sends it.
  async function send(text) {
    const box = await until('the message box', () => document.querySelector('textarea[aria-label="Message"]'));
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, text);
    box.dispatchEvent(new Event('input', { bubbles: true }));
    const form = box.closest('form');
    const send = await until('Send enabled', () => { const b = button(form, 'Send'); return b && !b.disabled && b; });
    send.click();
    await until('the run to start', () => button(form, 'Stop'), 30000);
  }
  const runFinished = (ms) => until('the run to finish', () => !button(document, 'Stop') && button(document, 'Send'), ms);
  const lastSeq = () => Math.max(0, ...[...document.querySelectorAll('.conversation [data-seq]')].map((e) => Number(e.dataset.seq)));

  function frames(ms) {
    return new Promise((resolve) => {
      const stamps = [];
      const t0 = performance.now();
      const tick = (now) => {
        stamps.push(now);
        if (now - t0 < ms) return requestAnimationFrame(tick);
        let dropped = 0, worst = 0;
        for (let i = 1; i < stamps.length; i++) {
          const gap = stamps[i] - stamps[i - 1];
          worst = Math.max(worst, gap);
          dropped += Math.max(0, Math.round(gap / (1000 / 60)) - 1);
        }
        resolve({ frames: stamps.length, dropped, worst_ms: Math.round(worst) });
      };
      requestAnimationFrame(tick);
    });
  }

  // From a click to the frame in which what it shows is on screen, timed in the page.
  async function clickUntil(el, done) {
    const t0 = performance.now();
    el.click();
    for (;;) {
      await new Promise((r) => requestAnimationFrame(r));
      if (done()) return Math.round(performance.now() - t0);
      if (performance.now() - t0 > 60000) throw new Error('timed out after a click');
    }
  }
  // What the page's JavaScript speed decides, in the real window: opening the 10,000-row
  // session (its last row drawn, markdown included), the chunk table of it, and a long
  // markdown reply with code fences streamed in.
  async function speed(tries) {
    const nav = await until('the sessions list', () => document.querySelector('nav[aria-label="Sessions"]'));
    const open = [];
    const table = [];
    for (let i = 0; i < tries; i++) {
      await openSession('twenty rows');
      await sleep(300);
      const b = [...nav.querySelectorAll('button')].find((x) => x.textContent.includes('ten thousand rows'));
      open.push(await clickUntil(b, () => (document.querySelector('.conversation [data-seq="10000"]')?.textContent ?? '').includes('File 2499 defines')));
      await sleep(300);
      const tab = await until('the Chunks tab', () => [...document.querySelectorAll('[role="tab"]')].find((x) => x.textContent === 'Chunks'));
      table.push(await clickUntil(tab, () => document.querySelector('[aria-label="Chunk table"] [data-seq="1"]')));
      const back = [...document.querySelectorAll('[role="tab"]')].find((x) => x.textContent !== 'Chunks');
      back?.click();
    }
    await newSession();
    const t0 = performance.now();
    await send('a long markdown reply');
    await runFinished(120000);
    const reply = Math.round(performance.now() - t0);
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    return { open_10k_ms: open, table_10k_ms: table, reply_ms: reply, median_open_10k_ms: med(open), median_table_10k_ms: med(table) };
  }

  try {
    const s = await window.go.desktop.Settings.GetSettings();
    await window.go.desktop.Settings.SaveSettings({
      provider: s.provider, base_url: s.base_url, model: s.model, api_key: '', clear_key: false,
      approval_mode: 'auto', prices: s.prices, context_windows: s.context_windows, theme: s.theme,
      budgets: { ...s.budgets, max_turns: 10000, max_tool_calls: 100000, timeout_seconds: 7200 },
    });
    if (args.scenario === 'speed') {
      mark('speed', await speed(args.tries ?? 5));
    } else if (args.scenario === 'frames') {
      await newSession();
      const idleFrames = await frames(args.seconds * 1000);
      let deltas = 0;
      const off = window.runtime.EventsOn('loop:event', (...evs) => { for (const ev of evs) if (ev.type === 'text_delta') deltas++; });
      const p = frames(args.seconds * 1000);
      await send('stream for real');
      const streaming = await p;
      off();
      await runFinished(120000);
      mark('frames', { idle: idleFrames, streaming: { ...streaming, deltas } });
    } else {
      await openSession('twenty rows');
      await sleep(idle);
      mark('open20_before', { last_seq: lastSeq() });
      // The same stream again (repeats times): a second one that leaves memory where the first
      // did tells a high-water mark from growth.
      for (let i = 1; i <= (args.repeats ?? 1); i++) {
        await newSession();
        const t0 = performance.now();
        await send('two hundred tool rounds');
        await runFinished(args.timeout_ms ?? 1800000);
        const streamedMs = Math.round(performance.now() - t0);
        const suffix = i === 1 ? '' : `_${i}`;
        mark('streamed' + suffix, { last_seq: lastSeq(), ms: streamedMs, dom_nodes: document.getElementsByTagName('*').length });
        await openSession('twenty rows');
        await sleep(idle);
        mark('open20_after' + suffix, { last_seq: lastSeq(), dom_nodes: document.getElementsByTagName('*').length });
      }
    }
  } catch (e) {
    mark('error', String(e && e.stack || e));
  }
  window.runtime.EventsEmit('bench:done', marks);
})();
