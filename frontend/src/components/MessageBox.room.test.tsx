import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Room } from '../api/types';

const room = vi.hoisted(() => ({ current: null as Room | null }));
vi.mock('../api/backend', () => ({ api: { diskRoom: vi.fn(async () => room.current) } }));

import { MessageBox } from './MessageBox';

describe('MessageBox and the disk', () => {
  it('warns under 100 MB before a run, and says why sending is refused on a full disk', async () => {
    room.current = { path: '/d/loopdesk.db', free: 40 << 20, low: true, full: false, message: 'The disk holding /d/loopdesk.db has only 40 MB free: a run stops when it fills.' };
    const { unmount } = render(<MessageBox running={false} disabled={false} onSend={async () => true} onStop={() => {}} />);
    expect((await screen.findByRole('status')).textContent).toContain('only 40 MB free');
    unmount();

    room.current = { path: '/d/loopdesk.db', free: 4096, low: true, full: true, message: 'The disk holding /d/loopdesk.db is full (4 KB free): free some space before sending.' };
    render(<MessageBox running={false} disabled={false} onSend={async () => true} onStop={() => {}} />);
    expect((await screen.findByRole('alert')).textContent).toContain('is full (4 KB free)');
  });

  it('says nothing with room to spare', async () => {
    room.current = { path: '/d/loopdesk.db', free: 50 << 30, low: false, full: false, message: '' };
    render(<MessageBox running={false} disabled={false} onSend={async () => true} onStop={() => {}} />);
    await screen.findByRole('textbox', { name: 'Message' });
    expect(screen.queryByRole('status')).toBeNull();
  });
});
