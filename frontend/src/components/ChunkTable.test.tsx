import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Row } from '../api/types';
import { chunk, makeFakeApi } from '../test/fakeApi';
import { ChunkTable, ROW_HEIGHT } from './ChunkTable';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

function manyRows(n: number): Row[] {
  const kinds = ['user', 'assistant', 'tool_result'] as const;
  return Array.from({ length: n }, (_, i) => {
    const kind = kinds[i % 3];
    const payload = kind === 'tool_result' ? { call_id: `c${i}`, name: 'read_file', content: `content ${i + 1}`, is_error: false } : { text: `message ${i + 1}` };
    return chunk('s1', i + 1, kind, payload);
  });
}

const bodyRows = () => screen.getAllByRole('row').filter((r) => r.getAttribute('aria-rowindex') !== '1');

describe('ChunkTable', () => {
  it('links a task call row and its result row to the child session, and a child back to its call row', async () => {
    const f = makeFakeApi();
    const rows: Row[] = [
      chunk('s1', 1, 'user', { text: 'split it' }),
      chunk('s1', 2, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 't1', name: 'task', arguments: '{"description":"read notes","prompt":"x"}' }] }),
      chunk('s1', 3, 'tool_result', { call_id: 't1', name: 'task', content: '42', is_error: false }),
    ];
    const child = f.session('read notes', { id: 'k1', parent_id: 's1', parent_call_id: 't1', fork_seq: 2 });
    const open = vi.fn();
    const { unmount } = render(<ChunkTable rows={rows} onFork={() => {}} childSessions={[child]} onOpenSession={open} />);
    const row = (seq: number) => bodyRows().find((r) => r.getAttribute('data-seq') === String(seq)) as HTMLElement;
    await userEvent.click(within(row(2)).getByRole('button', { name: 'Open child session read notes' }));
    expect(open).toHaveBeenLastCalledWith('k1');
    expect(within(row(1)).queryByRole('button', { name: /Open child session/ })).toBeNull();
    await userEvent.click(row(3));
    await userEvent.click(within(screen.getByRole('region', { name: 'Row 3' })).getByRole('button', { name: 'Open child session “read notes”' }));
    expect(open).toHaveBeenCalledTimes(2);
    unmount();

    // In the child's own table: back to the parent's row holding the call.
    const parent = f.session('split the work', { id: 's1' });
    render(<ChunkTable rows={[chunk('k1', 1, 'user', { text: 'x' })]} onFork={() => {}} parentOf={{ session: child, parentTitle: parent.title }} onOpenSession={open} />);
    await userEvent.click(screen.getByRole('button', { name: 'Started by task call t1 (row #2) of split the work' }));
    expect(open).toHaveBeenLastCalledWith('s1', 2);
  });

  it('offers Compact up to here on a row and Undo compaction on a summary still in effect', async () => {
    const rows: Row[] = [
      chunk('s1', 1, 'user', { text: 'hello' }),
      chunk('s1', 2, 'assistant', { text: 'hi', reasoning: '', tool_calls: [] }),
      chunk('s1', 3, 'summary', { text: 'said hi', through_seq: 2 }),
      chunk('s1', 4, 'summary', { text: 'old', through_seq: 2 }),
      chunk('s1', 5, 'summary', { text: 'Compaction undone', through_seq: 2, undoes: 4 }),
    ];
    const onCompact = vi.fn();
    const onUndo = vi.fn();
    render(<ChunkTable rows={rows} onFork={() => {}} onCompact={onCompact} onUndoCompaction={onUndo} />);
    const row = (seq: number) => bodyRows().find((r) => r.getAttribute('data-seq') === String(seq)) as HTMLElement;
    await userEvent.click(row(2));
    await userEvent.click(screen.getByRole('button', { name: 'Compact up to here' }));
    expect(onCompact).toHaveBeenCalledWith(2);
    await userEvent.click(row(3));
    await userEvent.click(screen.getByRole('button', { name: 'Undo compaction' }));
    expect(onUndo).toHaveBeenCalledWith(3);
    await userEvent.click(row(4));
    expect(screen.queryByRole('button', { name: 'Undo compaction' })).toBeNull();
  });

  it('keeps only the rows in view in the DOM, even for 100,000 rows', () => {
    const rows = manyRows(100_000);
    render(<ChunkTable rows={rows} onFork={() => {}} />);
    const table = screen.getByRole('table', { name: 'Chunk table' });
    expect(table.getAttribute('aria-rowcount')).toBe('100001');
    expect(bodyRows().length).toBeLessThan(60);
    expect(within(table).getByText('message 1')).toBeTruthy();

    // Scrolling to the end renders the last rows instead.
    const body = table.querySelector('.tbody') as HTMLElement;
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => {
      cb(0);
      return 1;
    });
    act(() => {
      body.scrollTop = 99_990 * ROW_HEIGHT;
      fireEvent.scroll(body);
    });
    vi.unstubAllGlobals();
    expect(within(table).getByText('message 100000')).toBeTruthy();
    expect(within(table).queryByText('message 1')).toBeNull();
    expect(bodyRows().length).toBeLessThan(60);
  });

  it('filters by kind', async () => {
    fake = makeFakeApi();
    fake.state.rows.set('s1', manyRows(9));
    render(<ChunkTable rows={manyRows(9)} onFork={() => {}} />);
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Filter by kind' }), 'tool_result');
    await waitFor(() => expect(bodyRows().map((r) => r.getAttribute('data-seq'))).toEqual(['3', '6', '9']));
    expect(screen.getByText('3 rows')).toBeTruthy();
  });

  it('pages a 100,000-row session: only the rows in view are read and in the DOM', async () => {
    fake = makeFakeApi();
    const all = manyRows(100_000);
    fake.state.rows.set('s1', all);
    // The conversation holds the last 200 rows; the table counts every row of the session.
    render(<ChunkTable rows={all.slice(-200)} sessionID="s1" firstSeq={1} lastSeq={100_000} onFork={() => {}} />);
    expect(screen.getByText('100,000 rows')).toBeTruthy();
    await waitFor(() => expect(bodyRows()[0].getAttribute('data-seq')).toBe('1'));
    expect(bodyRows().length).toBeLessThan(60);
    const tbody = document.querySelector('.tbody') as HTMLElement;
    act(() => {
      tbody.scrollTop = 50_000 * ROW_HEIGHT;
      fireEvent.scroll(tbody);
    });
    await waitFor(() => expect(bodyRows().some((r) => r.getAttribute('data-seq') === '50001')).toBe(true));
    expect(screen.getByText('read_file: content 50001')).toBeTruthy();
    expect(bodyRows().length).toBeLessThan(60);
    // Two pages read (the top, the middle), never the whole session.
    const read = fake.api.rowsBefore.mock.calls.map(([, , limit]) => limit as number).reduce((a, b) => a + b, 0);
    expect(read).toBeLessThanOrEqual(400);
    expect(fake.api.openSession).not.toHaveBeenCalled();
  });

  it('shows the full payload of a clicked row and forks from any row', async () => {
    const onFork = vi.fn();
    render(<ChunkTable rows={manyRows(9)} onFork={onFork} />);
    await userEvent.click(screen.getByText('read_file: content 6'));
    const detail = screen.getByRole('region', { name: 'Row 6' });
    expect(JSON.parse(within(detail).getByLabelText('Payload').textContent!)).toEqual({ call_id: 'c5', name: 'read_file', content: 'content 6', is_error: false });
    const row5 = bodyRows().find((r) => r.getAttribute('data-seq') === '5')!;
    await userEvent.click(within(row5).getByRole('button', { name: 'Fork from here' }));
    expect(onFork).toHaveBeenCalledWith(5);
  });

  it('selects a row asked for from elsewhere (a search hit)', () => {
    const rows = manyRows(5000);
    render(<ChunkTable rows={rows} focus={{ sessionID: 's1', seq: 4000 }} onFork={() => {}} />);
    expect(screen.getByRole('region', { name: 'Row 4000' })).toBeTruthy();
    const row = bodyRows().find((r) => r.getAttribute('data-seq') === '4000');
    expect(row?.getAttribute('aria-selected')).toBe('true');
  });
});
