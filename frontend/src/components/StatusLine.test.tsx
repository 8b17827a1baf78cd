import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StatusLine } from './StatusLine';

afterEach(() => vi.useRealTimers());

const base = { pending: [], running: {}, runStartedAt: null, onDecideAll: () => {} };

describe('StatusLine', () => {
  it('says what is happening: the model, then the tool and for how long', () => {
    vi.useFakeTimers();
    const now = Date.now();
    const { rerender } = render(<StatusLine {...base} phase="waiting" />);
    expect(screen.getByRole('status', { name: 'Run status' }).textContent).toContain('Waiting for the model…');
    rerender(<StatusLine {...base} phase="tools" running={{ c1: { run_id: 'r1', call_id: 'c1', name: 'run_shell_command', since: now } }} />);
    act(() => vi.advanceTimersByTime(3000));
    expect(screen.getByRole('status', { name: 'Run status' }).textContent).toContain('Running run_shell_command for 3s');
    rerender(<StatusLine {...base} phase="idle" />);
    expect(screen.getByRole('status', { name: 'Run status' }).textContent).toBe('');
  });

  it('shows no spinner while every call waits for the person: nothing works then', () => {
    const p = { run_id: 'r1', call_id: 'a', name: 'write_file', arguments: '{}', read_only: false, sandboxed: false, network: false };
    const { container, rerender } = render(<StatusLine {...base} phase="waiting" />);
    expect(container.querySelector('.spinner')).not.toBeNull();
    rerender(<StatusLine {...base} phase="waiting" pending={[p]} />);
    expect(container.querySelector('.spinner')).toBeNull();
    rerender(<StatusLine {...base} phase="tools" pending={[p]} running={{ c1: { run_id: 'r1', call_id: 'c1', name: 'run_shell_command', since: Date.now() } }} />);
    expect(container.querySelector('.spinner')).not.toBeNull();
  });

  it('counts whole minutes, moving once a minute, while every call waits for the person', () => {
    vi.useFakeTimers();
    const p = { run_id: 'r1', call_id: 'a', name: 'write_file', arguments: '{}', read_only: false, sandboxed: false, network: false };
    render(<StatusLine {...base} phase="waiting" pending={[p]} runStartedAt={Date.now() - 50_000} />);
    const line = screen.getByRole('status', { name: 'Run status' });
    expect(line.textContent).toContain('· <1m');
    act(() => vi.advanceTimersByTime(59_000));
    expect(line.textContent).toContain('· <1m'); // 109 s in: no tick yet
    act(() => vi.advanceTimersByTime(1000));
    expect(line.textContent).toContain('· 1m');
    expect(vi.getTimerCount()).toBe(1);
  });

  it('offers approve all and deny all only when several calls wait', async () => {
    const onDecideAll = vi.fn();
    const p = (id: string) => ({ run_id: 'r1', call_id: id, name: 'write_file', arguments: '{}', read_only: false, sandboxed: false, network: false });
    const { rerender } = render(<StatusLine {...base} phase="waiting" pending={[p('a')]} onDecideAll={onDecideAll} />);
    expect(screen.getByText('Waiting for your approval of write_file')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve all' })).toBeNull();
    rerender(<StatusLine {...base} phase="waiting" pending={[p('a'), p('b')]} onDecideAll={onDecideAll} />);
    await userEvent.click(screen.getByRole('button', { name: 'Deny all' }));
    expect(onDecideAll).toHaveBeenCalledWith(false);
  });

  it('says which MCP servers a run waits for, and which it started without', () => {
    const { rerender } = render(<StatusLine {...base} phase="waiting" mcpStarting={['everything', 'files']} />);
    expect(screen.getByRole('status', { name: 'Run status' }).textContent).toContain('Starting MCP servers… everything, files');
    rerender(<StatusLine {...base} phase="waiting" mcpFailed={['broken: exited with code 1 before answering initialize']} />);
    expect(screen.getByRole('status', { name: 'Run status' }).textContent).toContain('Waiting for the model…');
    expect(screen.getByRole('alert').textContent).toContain('This run has no tools from: broken: exited with code 1');
    rerender(<StatusLine {...base} phase="idle" mcpFailed={['broken: gone']} />);
    expect(screen.getByRole('alert').textContent).toContain('broken: gone');
  });
});
