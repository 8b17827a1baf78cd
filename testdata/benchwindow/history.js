// The page driver of scripts/bench-history-window.sh (history at any size), run in Loopdesk's
// real window by bench_hook.go (build tag bench) on a copy of the bench journal
// (backend/historybench). It clicks as a person does and emits "bench:mark" with what it
// measured; Go adds the memory of the process tree to each mark. Times are taken in the page:
// from a click to the frame in which what it shows is painted (requestAnimationFrame).
// window.__benchArgs:
//   scenario "start": the session list painted (rows: how many session rows to wait for; 0 for
//     an empty journal), stamped with the wall clock for the script to set against the launch.
//   scenario "hold": the session titled title opened, its last row (last) painted, then idle_ms
//     of quiet before the mark: the window's memory with that session open.
//   scenario "history": switching between two 10,000-row sessions (switches), opening the
//     100,000-row session against the 20-row one from the 10-row one (opens pairs), scrolling
//     the big one's conversation and chunk table, and tool rounds (rounds, after a warm-up) in a
//     10,000-row session against the 10-row one; the fake model's replies are queued by the
//     script, the answer of round k (from 0, warm-ups included) being "Listed the folder, round k.".
//   ids, titles: the journal's sessions by name (big, small, ten, long: [A, B]).
(async () => {
  const args = window.__benchArgs || {};
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  let marks = 0;
  const mark = (label, data) => {
    marks++;
    window.runtime.EventsEmit('bench:mark', label, data ?? null);
  };
  // Polls f every frame until it returns something true; throws after ms.
  const until = async (what, f, ms = 120000) => {
    const t0 = performance.now();
    for (;;) {
      const v = f();
      if (v) return v;
      if (performance.now() - t0 > ms) throw new Error('timed out waiting for ' + what);
      await frame();
    }
  };
  const nav = () => document.querySelector('nav[aria-label="Sessions"]');
  const sessionButton = (title) => [...(nav()?.querySelectorAll('button.session') ?? [])].find((b) => b.textContent.includes(title));
  const openId = () => document.querySelector('main[data-session-id]')?.dataset.sessionId;
  const rowText = (seq) => document.querySelector(`.conversation [data-seq="${seq}"]`)?.textContent ?? null;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

  // Clicks the session titled title in the list and returns the ms from the click to the frame
  // in which its row last is painted: the session open (its id in main) and that row's text
  // other than what the same seq of the session open before showed.
  async function open(title, id, last) {
    const b = await until('session ' + title + ' in the list', () => sessionButton(title));
    // The window may open with this session already (the newest): then its row is the one.
    const before = openId() === id ? null : rowText(last);
    const t0 = performance.now();
    b.click();
    await until('row ' + last + ' of ' + title, () => openId() === id && rowText(last) !== null && rowText(last) !== before)
      .catch((e) => {
        const seqs = [...document.querySelectorAll('.conversation [data-seq]')].map((x) => x.dataset.seq);
        throw new Error(`${e.message}: open ${openId()}, want ${id}; rows ${seqs.slice(0, 3)}..${seqs.slice(-3)}`);
      });
    await frame();
    return Math.round(performance.now() - t0);
  }
  // Opens a session and lets the page settle (WebKit has no requestIdleCallback): what follows
  // is not the open's tail.
  async function settle(title, id, last) {
    await open(title, id, last);
    await sleep(300);
  }

  // Frame stamps for as long as work() runs: the share of frames on time (a gap of k frame
  // intervals is k-1 frames missed) and the worst gap.
  async function frames(work) {
    const stamps = [];
    let on = true;
    const tick = (now) => {
      stamps.push(now);
      if (on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const out = await work();
    on = false;
    await frame();
    let missed = 0, worst = 0;
    for (let i = 1; i < stamps.length; i++) {
      const gap = stamps[i] - stamps[i - 1];
      worst = Math.max(worst, gap);
      missed += Math.max(0, Math.round(gap / (1000 / 60)) - 1);
    }
    const due = stamps.length - 1 + missed;
    return { ...out, frames: stamps.length, missed, on_time_pct: +((100 * (stamps.length - 1)) / Math.max(1, due)).toFixed(1), worst_ms: Math.round(worst) };
  }

  // Scrolls the conversation up a wheel step (400 px) a frame for ms, as a fling would: rows
  // come in from Go as the top nears; the most rows the DOM held and the earliest reached.
  const scrollConversation = (ms) => frames(async () => {
    const el = document.querySelector('section.conversation');
    const t0 = performance.now();
    let rows = 0, first = Infinity;
    while (performance.now() - t0 < ms) {
      el.scrollTop = Math.max(0, el.scrollTop - 400);
      await frame();
      const seen = el.querySelectorAll('[data-seq]');
      rows = Math.max(rows, seen.length);
      if (seen.length) first = Math.min(first, Number(seen[0].dataset.seq));
    }
    return { rows_in_dom_max: rows, first_seq_seen: first };
  });
  // Scrolls the chunk table from its top to its bottom in ms, a step a frame.
  const scrollTable = (ms) => frames(async () => {
    const body = document.querySelector('[aria-label="Chunk table"] .tbody');
    body.scrollTop = 0;
    await frame();
    const total = body.scrollHeight - body.clientHeight;
    const t0 = performance.now();
    let rows = 0;
    for (let f = 0; f < 1;) {
      f = Math.min(1, (performance.now() - t0) / ms);
      body.scrollTop = f * total;
      await frame();
      rows = Math.max(rows, body.querySelectorAll('[role="row"]').length);
    }
    return { rows_in_dom_max: rows, last_row_shown: !!body.querySelector(`[data-seq="${args.big_rows}"]`) };
  });

  // One tool round in the open session (the model calls list_dir, then answers): from the
  // tool result's row stored (its created_at, Go's wall clock) to the frame in which the answer
  // is painted (the page's wall clock), as e2e/tests/ui-measure.test.mjs times it.
  async function toolRound(k) {
    const text = `Listed the folder, round ${k}.`;
    let resultAt = 0, heardAt = 0;
    const off = window.runtime.EventsOn('loop:event', (...evs) => evs.forEach((ev) => {
      if (ev.type !== 'rows_stored') return;
      const r = ev.rows.find((x) => x.kind === 'tool_result');
      if (r && !resultAt) resultAt = Date.parse(r.created_at);
      if (!heardAt && ev.rows.some((x) => x.kind === 'assistant' && x.payload.text === text)) heardAt = Date.now();
    }));
    const box = await until('the message box', () => document.querySelector('textarea[aria-label="Message"]'));
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, `list the folder (round ${k})`);
    box.dispatchEvent(new Event('input', { bubbles: true }));
    const form = box.closest('form');
    const send = await until('Send enabled', () => [...form.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Send' && !b.disabled));
    send.click();
    await until('the answer of round ' + k, () => resultAt && heardAt &&
      [...document.querySelectorAll('.conversation article[aria-label="Assistant"][data-seq]')].some((a) => a.textContent.includes(text)), 60000);
    const shownAt = Date.now();
    off();
    await until('the run to end', () => ![...document.querySelectorAll('button')].some((b) => b.textContent.trim() === 'Stop'), 60000);
    return { ms: shownAt - resultAt, page_ms: shownAt - heardAt, result_at: resultAt };
  }

  async function history() {
    const { ids, titles } = args;
    const [a, b] = [0, 1].map((i) => ({ title: titles.long[i], id: ids.long[i], last: args.long_rows }));
    const big = { title: titles.big, id: ids.big, last: args.big_rows };
    const small = { title: titles.small, id: ids.small, last: 20 };
    const ten = { title: titles.ten, id: ids.ten, last: 10 };
    const out = {};
    // Switching between two 10,000-row sessions, to the last rows painted.
    await settle(a.title, a.id, a.last);
    const switches = [];
    for (let i = 0; i < (args.switches ?? 20); i++) {
      const to = i % 2 ? a : b;
      switches.push(await open(to.title, to.id, to.last));
      await sleep(200);
    }
    out.switch_ms = switches;
    out.switch_p95_ms = pct(switches, 95);
    out.switch_median_ms = median(switches);
    // Opening the 100,000-row session against the 20-row one, each from the 10-row one.
    const bigs = [], smalls = [];
    for (let i = 0; i < (args.opens ?? 5); i++) {
      for (const [s, into] of i % 2 ? [[small, smalls], [big, bigs]] : [[big, bigs], [small, smalls]]) {
        await settle(ten.title, ten.id, ten.last);
        into.push(await open(s.title, s.id, s.last));
      }
    }
    out.open_big_ms = bigs;
    out.open_small_ms = smalls;
    // Scrolling the big session's conversation and its chunk table.
    await settle(big.title, big.id, big.last);
    out.scroll_conversation = await scrollConversation(args.scroll_ms ?? 8000);
    const tab = await until('the Chunks tab', () => [...document.querySelectorAll('[role="tab"]')].find((x) => x.textContent === 'Chunks'));
    tab.click();
    await until('the chunk table', () => document.querySelector('[aria-label="Chunk table"] .tbody [role="row"]'));
    await sleep(500);
    out.scroll_table = await scrollTable(args.table_ms ?? 4000);
    [...document.querySelectorAll('[role="tab"]')].find((x) => x.textContent !== 'Chunks')?.click();
    // Tool rounds: the 10-row session against a 10,000-row one, alternating, after a warm-up each.
    const rounds = { ten: [], long: [] };
    let k = 0;
    for (let i = -1; i < (args.rounds ?? 11); i++) {
      for (const [s, into] of [[ten, rounds.ten], [b, rounds.long]]) {
        await settle(s.title, s.id, s.last + 4 * (i + 1)); // each round adds the message, the call, its result, the answer
        const r = await toolRound(k++);
        if (i >= 0) into.push(r);
      }
    }
    out.rounds = rounds;
    return out;
  }

  try {
    if (args.scenario === 'start') {
      // The list's content painted: its first rows, or in an empty journal its "No sessions yet.".
      await until('the session list', () => nav() && (args.rows ? nav().querySelectorAll('button.session').length >= args.rows :
        [...nav().querySelectorAll('p.empty')].some((p) => p.textContent.includes('No sessions yet'))));
      await frame();
      mark('start', { painted_unix_ms: Date.now(), time_origin_ms: performance.timeOrigin, sessions_shown: nav().querySelectorAll('button.session').length,
        dom_nodes: document.getElementsByTagName('*').length });
    } else {
      const s = await window.go.desktop.Settings.GetSettings();
      await window.go.desktop.Settings.SaveSettings({
        provider: s.provider, base_url: s.base_url, model: s.model, api_key: '', clear_key: false,
        approval_mode: 'auto', prices: s.prices, theme: s.theme,
        context_windows: [...(s.context_windows ?? []).filter((w) => w.model !== 'fake-model'), { model: 'fake-model', tokens: 100000000 }],
        budgets: { ...s.budgets, max_turns: 10000, max_tool_calls: 100000, timeout_seconds: 7200 },
      });
      // The window reopens the session open when it last closed: let that finish first, or it
      // lands after the first click.
      await until('the session open at start', () => openId() && document.querySelector('.conversation [data-seq]'), 60000).catch(() => {});
      await sleep(1000);
      if (args.scenario === 'hold') {
        await settle(args.title, args.id, args.last);
        mark('opened', { title: args.title }); // the memory just after the open; a screenshot's cue
        await sleep(args.idle_ms ?? 8000);
        mark('hold', { title: args.title, dom_nodes: document.getElementsByTagName('*').length,
          rows_in_dom: document.querySelectorAll('.conversation [data-seq]').length });
      } else {
        mark('history', await history());
      }
    }
  } catch (e) {
    mark('error', `${e}\n${e && e.stack}`);
  }
  window.runtime.EventsEmit('bench:done', marks);
})();
