import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Row } from '../api/types';
import { chunk, makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { useSession } from '../hooks/useSession';
import { SLICE } from '../hooks/useSessionSlice';
import { MAX_ROWS, PAGE } from '../state/window';
import { Conversation, type Focus } from './Conversation';

const actions = { decide: vi.fn(async () => true), suggestRule: vi.fn(async () => null), readFile: vi.fn(async () => null) };

/** A session of n rows in groups of four: question, tool call, its result, an answer. */
function longSession(id: string, n: number): Row[] {
  return Array.from({ length: n }, (_, i) => {
    const seq = i + 1;
    const g = Math.floor(i / 4);
    switch (i % 4) {
      case 0:
        return chunk(id, seq, 'user', { text: `Question ${g}` });
      case 1:
        return chunk(id, seq, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: `c${g}`, name: 'read_file', arguments: '{"path":"a"}' }] });
      case 2:
        return chunk(id, seq, 'tool_result', { call_id: `c${g}`, name: 'read_file', content: `file ${g}`, is_error: false });
      default:
        return chunk(id, seq, 'assistant', { text: `Answer ${g}`, reasoning: '', tool_calls: [] });
    }
  });
}

/** The open session as the window shows it: useSession's rows in the conversation. */
function Open({ id, focus }: { id: string; focus?: Focus | null }) {
  const chat = useSession(id);
  return (
    <div data-held={chat.rows.length}>
      <Conversation
        rows={chat.rows}
        firstSeq={chat.firstSeq}
        atEnd={chat.atEnd}
        paging={chat.paging}
        stream={chat.stream}
        run={chat.run}
        streamFrom={chat.streamFrom}
        sent={chat.sent}
        outputs={chat.outputs}
        phase={chat.phase}
        pending={chat.pending}
        running={chat.running}
        outcome={chat.outcome}
        error={chat.error}
        focus={focus}
        actions={actions as never}
      />
    </div>
  );
}

const ROW_PX = 100;
const VIEW_PX = 600;
const realRect = HTMLElement.prototype.getBoundingClientRect;
afterEach(() => {
  HTMLElement.prototype.getBoundingClientRect = realRect;
});

/**
 * jsdom lays nothing out: the conversation gets a 600 px view, and each element with a
 * data-seq 100 px one after another, so scrolling, what is in view and the anchor can be seen.
 */
function layOut(el: HTMLElement) {
  let top = 0;
  const rows = () => [...el.querySelectorAll<HTMLElement>('[data-seq]')];
  const height = () => rows().length * ROW_PX;
  Object.defineProperty(el, 'clientHeight', { configurable: true, get: () => VIEW_PX });
  Object.defineProperty(el, 'scrollHeight', { configurable: true, get: height });
  Object.defineProperty(el, 'scrollTop', { configurable: true, get: () => top, set: (v: number) => (top = Math.max(0, Math.min(v, height() - VIEW_PX))) });
  HTMLElement.prototype.getBoundingClientRect = function (this: HTMLElement) {
    const i = this === el ? -1 : rows().indexOf(this);
    const y = i < 0 ? 0 : i * ROW_PX - top;
    return { top: y, bottom: y + (i < 0 ? VIEW_PX : ROW_PX), left: 0, right: 0, width: 0, height: ROW_PX, x: 0, y, toJSON: () => ({}) } as DOMRect;
  };
}

const conversation = () => screen.getByRole('region', { name: 'Conversation' });
const inDom = () => [...conversation().querySelectorAll<HTMLElement>('[data-seq]')].map((e) => Number(e.dataset.seq));
const held = () => Number(document.querySelector<HTMLElement>('[data-held]')!.dataset.held);
/** The first row in view and where it is on screen. */
function firstInView(el: HTMLElement) {
  const r = [...el.querySelectorAll<HTMLElement>('[data-seq]')].find((e) => e.getBoundingClientRect().bottom > 0)!;
  return { seq: r.dataset.seq, top: r.getBoundingClientRect().top };
}

describe('the conversation of a 100,000-row session', () => {
  it('opens with its last rows, keeps the DOM bounded, loads earlier pages at the top, keeps the anchor, jumps to a row', async () => {
    fake = makeFakeApi();
    const s = fake.session('long');
    fake.state.sessions.push(s);
    fake.state.rows.set(s.id, longSession(s.id, 100_000));
    const { rerender } = render(<Open id={s.id} />);
    await screen.findByText('Answer 24999');
    expect(fake.api.openSession).toHaveBeenCalledWith(s.id, PAGE);
    expect(held()).toBe(PAGE);
    expect(inDom().length).toBeLessThanOrEqual(SLICE);
    const el = conversation();
    layOut(el);

    // Scrolling up: the slice moves up over the rows held, then pages come from Go.
    let lowest = Infinity;
    for (let i = 0; i < 80 && lowest > 99_000; i++) {
      el.scrollTop = 0;
      const before = firstInView(el);
      act(() => {
        fireEvent.scroll(el);
      });
      // The row that was at the top of the view stays where it was when rows come in above.
      const same = el.querySelector<HTMLElement>(`[data-seq="${before.seq}"]`);
      if (same) expect(same.getBoundingClientRect().top).toBe(before.top);
      await act(async () => {
        await new Promise((r) => requestAnimationFrame(r));
      });
      expect(inDom().length).toBeLessThanOrEqual(SLICE);
      lowest = Math.min(lowest, ...inDom());
    }
    expect(lowest).toBeLessThanOrEqual(99_000);
    expect(fake.api.rowsBefore).toHaveBeenCalled();
    expect(held()).toBeLessThanOrEqual(MAX_ROWS);
    expect(fake.api.rowsAfter).not.toHaveBeenCalled();

    // A row far from the ones held (a search hit): read around it, rendered, the rest dropped.
    rerender(<Open id={s.id} focus={{ sessionID: s.id, seq: 41 }} />);
    await waitFor(() => expect(inDom()).toContain(41));
    expect(fake.api.rowsAround).toHaveBeenCalledWith(s.id, 41, PAGE);
    expect(held()).toBeLessThanOrEqual(PAGE);
    expect(inDom().length).toBeLessThanOrEqual(SLICE);

    // Away from the end, a row stored live is not appended; the way back to the end is offered.
    act(() => fake.store(s.id, [chunk(s.id, 100_001, 'user', { text: 'a live question' })]));
    expect(screen.queryByText('a live question')).toBeNull();
    act(() => screen.getByRole('button', { name: /jump to the latest/ }).click());
    expect(await screen.findByText('a live question')).toBeTruthy();
    expect(held()).toBeLessThanOrEqual(PAGE);
  }, 60000);

  it('appends live rows at the bottom while the person reads the end, holding no more than MAX_ROWS', async () => {
    fake = makeFakeApi();
    const s = fake.session('live');
    fake.state.sessions.push(s);
    fake.state.rows.set(s.id, longSession(s.id, 400));
    render(<Open id={s.id} />);
    await screen.findByText('Answer 99');
    act(() => fake.store(s.id, [chunk(s.id, 401, 'user', { text: 'next question' })]));
    expect(await screen.findByText('next question')).toBeTruthy();
    expect(inDom().at(-1)).toBe(401);
    expect(inDom().length).toBeLessThanOrEqual(SLICE);
  }, 20000);
});
