import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { MessageBox } from './MessageBox';

describe('MessageBox', () => {
  it('sends on Enter and adds a line on Shift+Enter', async () => {
    const onSend = vi.fn(async () => true);
    render(<MessageBox running={false} disabled={false} onSend={onSend} onStop={() => {}} />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'first line{Shift>}{Enter}{/Shift}second line');
    expect(onSend).not.toHaveBeenCalled();
    expect(box).toHaveProperty('value', 'first line\nsecond line');
    await userEvent.type(box, '{Enter}');
    expect(onSend).toHaveBeenCalledWith('first line\nsecond line');
    expect(box).toHaveProperty('value', '');
  });

  it('keeps the text when sending fails', async () => {
    const onSend = vi.fn(async () => false);
    render(<MessageBox running={false} disabled={false} onSend={onSend} onStop={() => {}} />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'do not lose me');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(onSend).toHaveBeenCalledOnce();
    expect(box).toHaveProperty('value', 'do not lose me');
  });

  it('keeps what was typed while a send was on its way', async () => {
    let answer: (ok: boolean) => void = () => {};
    const onSend = vi.fn(() => new Promise<boolean>((resolve) => (answer = resolve)));
    render(<MessageBox running={true} disabled={false} onSend={onSend} onStop={() => {}} />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'first{Enter}');
    expect(onSend).toHaveBeenCalledWith('first');
    await userEvent.clear(box);
    await userEvent.type(box, 'second, typed meanwhile');
    await act(async () => answer(true)); // the first send is stored now
    expect(box).toHaveProperty('value', 'second, typed meanwhile');
  });

  it('stays usable while a run is going: Queue sends, Stop stops, queued messages can be removed', async () => {
    const onStop = vi.fn();
    const onSend = vi.fn(async () => true);
    const onRemove = vi.fn();
    render(
      <MessageBox
        running={true}
        disabled={false}
        queued={[{ id: 'q1', text: 'also run the tests', queued_at: '' }]}
        onSend={onSend}
        onStop={onStop}
        onRemoveQueued={onRemove}
      />,
    );
    expect(screen.queryByRole('button', { name: 'Send' })).toBeNull();
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'and lint{Enter}');
    expect(onSend).toHaveBeenCalledWith('and lint');
    expect(screen.getByRole('list', { name: 'Queued messages' }).textContent).toContain('also run the tests');
    await userEvent.click(screen.getByRole('button', { name: 'Remove queued message: also run the tests' }));
    expect(onRemove).toHaveBeenCalledWith('q1');
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(onStop).toHaveBeenCalledOnce();
  });

  it('offers Send now for a message left queued only while no run goes on', async () => {
    const q = [{ id: 'q1', text: 'then b', queued_at: '' }];
    const onSendQueued = vi.fn();
    const onRemoveQueued = vi.fn();
    const { rerender } = render(
      <MessageBox running={true} disabled={false} queued={q} onSend={async () => true} onStop={() => {}} onRemoveQueued={onRemoveQueued} onSendQueued={onSendQueued} />,
    );
    expect(screen.queryByRole('button', { name: 'Send now: then b' })).toBeNull();
    rerender(<MessageBox running={false} disabled={false} queued={q} onSend={async () => true} onStop={() => {}} onRemoveQueued={onRemoveQueued} onSendQueued={onSendQueued} />);
    await userEvent.click(screen.getByRole('button', { name: 'Send now: then b' }));
    expect(onSendQueued).toHaveBeenCalledWith('q1');
    await userEvent.click(screen.getByRole('button', { name: 'Remove queued message: then b' }));
    expect(onRemoveQueued).toHaveBeenCalledWith('q1');
  });
});
