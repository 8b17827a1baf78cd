import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { PinnedPlan } from './PinnedPlan';
import type { PinnedPlan as Pinned } from '../api/types';

const plan: Pinned = {
  explanation: 'found the bug',
  plan: [
    { step: 'read the code', status: 'completed' },
    { step: 'fix the bug', status: 'in_progress' },
    { step: 'run the tests', status: 'pending' },
  ],
  seq: 4,
  by: 'model',
};

describe('PinnedPlan', () => {
  it('shows nothing without a plan', () => {
    const { container } = render(<PinnedPlan plan={null} running={false} error="" onSave={vi.fn()} />);
    expect(container.innerHTML).toBe('');
  });

  it('shows each step with its status and the count done', () => {
    render(<PinnedPlan plan={plan} running={false} error="" onSave={vi.fn()} />);
    const region = screen.getByRole('region', { name: 'Plan' });
    expect(region.textContent).toContain('1/3 done');
    expect(screen.getByLabelText('fix the bug (in progress)')).toBeTruthy();
    expect(screen.getByLabelText('read the code (completed)')).toBeTruthy();
    expect(region.textContent).toContain('found the bug');
  });

  it('edits steps and saves the whole plan; a refused save keeps the editor open', async () => {
    const onSave = vi.fn().mockResolvedValueOnce(false).mockResolvedValueOnce(true);
    render(<PinnedPlan plan={plan} running={false} error="" onSave={onSave} />);
    fireEvent.click(screen.getByRole('button', { name: 'Edit plan' }));
    fireEvent.change(screen.getByLabelText('Step 2'), { target: { value: 'fix the bug with a test first' } });
    fireEvent.change(screen.getByLabelText('Status of step 3'), { target: { value: 'in_progress' } });
    fireEvent.click(screen.getByRole('button', { name: 'Remove step 1' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save plan' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledTimes(1));
    expect(onSave.mock.calls[0][0]).toEqual({
      explanation: 'found the bug',
      plan: [
        { step: 'fix the bug with a test first', status: 'in_progress' },
        { step: 'run the tests', status: 'in_progress' },
      ],
    });
    expect(screen.getByRole('region', { name: 'Edit plan' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save plan' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Edit plan' })).toBeNull());
  });

  it('cannot be edited while a run is going', () => {
    render(<PinnedPlan plan={plan} running={true} error="" onSave={vi.fn()} />);
    expect((screen.getByRole('button', { name: 'Edit plan' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
