import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { DamagedScreen } from './DamagedScreen';

const openAnother = vi.fn(async (_path: string) => {});
vi.mock('../api/storage', () => ({
  storage: {
    check: async () => [{ problem: 'unreadable_row', session_id: 's1', seq: 14, detail: 'row 14 of 100 cannot be read' }],
    recover: async () => ({
      path: '/d/loopdesk.recovered-20261207T120000Z.db',
      report: { sessions: 3, whole: 2, rows: 180, not_saved: [{ problem: 'not_saved', session_id: 's1', seq: 14, detail: 'rows 14-100 of the session not saved: row 14 cannot be read' }] },
    }),
    openAnother: (p: string) => openAnother(p),
  },
}));

const status = { path: '/d/loopdesk.db', damaged: true, too_new: false, problem: 'p', message: 'the database /d/loopdesk.db is damaged: p. Nothing was written to it.' };

describe('the damaged-database screen', () => {
  it('says what is wrong and offers Check, Recover and Open another', async () => {
    render(<DamagedScreen status={status} />);
    expect(screen.getByRole('heading', { name: 'This database is damaged' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('Nothing was written to it');

    fireEvent.click(screen.getByRole('button', { name: 'Check' }));
    const table = await screen.findByRole('table', { name: 'Problems' });
    expect(table.textContent).toContain('session s1, row 14');

    fireEvent.click(screen.getByRole('button', { name: 'Recover' }));
    expect((await screen.findByText(/Recovered 3 session\(s\) \(2 whole\) and 180 row\(s\)/)).textContent).toContain('Not saved: 1');
    fireEvent.click(screen.getByRole('button', { name: 'Open the recovered copy' }));
    expect(openAnother).toHaveBeenCalledWith('/d/loopdesk.recovered-20261207T120000Z.db');

    fireEvent.change(screen.getByLabelText('Another database'), { target: { value: '/d/backup.db' } });
    const open = screen.getByRole('button', { name: 'Open another' }) as HTMLButtonElement;
    await waitFor(() => expect(open.disabled).toBe(false)); // the copy's opening has settled
    fireEvent.click(open);
    expect(openAnother).toHaveBeenLastCalledWith('/d/backup.db');
  });

  it('names a newer Loopdesk for a file ahead of this one', () => {
    render(<DamagedScreen status={{ ...status, too_new: true }} />);
    expect(screen.getByRole('heading', { name: 'This database is from a newer Loopdesk' })).toBeTruthy();
  });
});
