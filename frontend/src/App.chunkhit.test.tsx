// A search hit opens its session at the row in the conversation and in the chunk table: the
// table's row is selected and in view once the row's detail has opened below the table.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Row } from './api/types';
import { ROW_HEIGHT } from './components/ChunkTable';
import { chunk, makeFakeApi } from './test/fakeApi';

let fake = makeFakeApi();
vi.mock('./api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { App } from './App';

// happy-dom lays nothing out: give the table's scroller the heights a window gives it, a
// tall one until a row's detail opens below the table and takes part of the panel.
const TALL = 600;
const WITH_DETAIL = 200;
let restore: () => void = () => {};

beforeEach(() => {
  fake = makeFakeApi();
  const proto = HTMLElement.prototype;
  const before = Object.getOwnPropertyDescriptor(proto, 'clientHeight');
  Object.defineProperty(proto, 'clientHeight', {
    configurable: true,
    get(this: HTMLElement) {
      if (!this.classList.contains('tbody')) return before?.get?.call(this) ?? 0;
      return this.closest('.chunk-table')?.querySelector('.chunk-detail') ? WITH_DETAIL : TALL;
    },
  });
  restore = () => {
    if (before) Object.defineProperty(proto, 'clientHeight', before);
    else delete (proto as { clientHeight?: number }).clientHeight;
  };
});

afterEach(() => restore());

describe('a search hit in the chunk table', () => {
  it('scrolls the hit row into view and selects it, with the row detail open below', { timeout: 30000 }, async () => {
    const s = fake.session('long one');
    fake.state.sessions.push(s);
    const rows: Row[] = [];
    for (let seq = 1; seq <= 160; seq += 2) {
      rows.push(chunk(s.id, seq, 'user', { text: seq === 121 ? 'the needle question' : `question ${seq}` }));
      rows.push(chunk(s.id, seq + 1, 'assistant', { text: `answer ${seq + 1}`, reasoning: '', tool_calls: [] }));
    }
    fake.state.rows.set(s.id, rows);
    fake.state.hits = [{ session_id: s.id, seq: 121, kind: 'user', snippet: 'the needle question', title: s.title } as never];
    render(<App />);
    await userEvent.click(await screen.findByRole('tab', { name: 'Chunks' }));
    await userEvent.type(screen.getByLabelText('Search sessions'), 'needle');
    const results = await screen.findByRole('region', { name: 'Search results' });
    await userEvent.click(await within(results).findByRole('button', { name: /needle/ }));

    await screen.findByRole('region', { name: 'Row 121' }); // the detail below the table
    const table = screen.getByRole('table', { name: 'Chunk table' });
    const body = table.querySelector('.tbody') as HTMLElement;
    await waitFor(() => {
      const row = table.querySelector('[aria-rowindex="122"]') as HTMLElement | null;
      expect(row?.getAttribute('aria-selected')).toBe('true');
      const top = 120 * ROW_HEIGHT; // the 121st row of the table
      expect(top).toBeGreaterThanOrEqual(body.scrollTop);
      expect(top + ROW_HEIGHT).toBeLessThanOrEqual(body.scrollTop + body.clientHeight);
    });
  });
});
