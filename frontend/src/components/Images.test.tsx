import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { makeFakeApi } from '../test/fakeApi';

const fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { MessageBox } from './MessageBox';
import { RowImages } from './Images';

const png = () => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'shot.png', { type: 'image/png' });

describe('attaching images', () => {
  it('Attach image is a button the keyboard reaches that opens the file chooser', async () => {
    render(<MessageBox running={false} disabled={false} onSend={async () => true} onStop={() => {}} />);
    const button = screen.getByRole('button', { name: 'Attach image' });
    const input = screen.getByLabelText('Attach image') as HTMLInputElement;
    const chooser = vi.spyOn(input, 'click');
    screen.getByRole('textbox', { name: 'Message' }).focus();
    await userEvent.tab();
    expect(document.activeElement).toBe(button);
    await userEvent.keyboard('{Enter}');
    expect(chooser).toHaveBeenCalledTimes(1);
  });

  it('shows a thumbnail with a remove button and sends the image with the text', async () => {
    const onSend = vi.fn(async () => true);
    render(<MessageBox running={false} disabled={false} onSend={onSend} onStop={() => {}} />);
    await userEvent.upload(screen.getByLabelText('Attach image'), png());
    const list = await screen.findByRole('list', { name: 'Attached images' });
    expect(within(list).getByRole('img', { name: 'shot.png' })).toBeTruthy();
    await userEvent.upload(screen.getByLabelText('Attach image'), new File(['x'], 'other.png', { type: 'image/png' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Remove image other.png' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'what is this?{Enter}');
    await waitFor(() => expect(onSend).toHaveBeenCalledTimes(1));
    const [text, images] = onSend.mock.calls[0] as unknown as [string, { name: string; data: string }[]];
    expect(text).toBe('what is this?');
    expect(images.map((i) => i.name)).toEqual(['shot.png']);
    expect(images[0].data).toMatch(/^data:image\/png;base64,/);
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Attached images' })).toBeNull());
  });

  it('refuses a file that is not an image, and says a text-only model gets none', async () => {
    render(<MessageBox running={false} disabled={false} textOnly onSend={async () => true} onStop={() => {}} />);
    await userEvent.upload(screen.getByLabelText('Attach image'), new File(['%PDF'], 'notes.pdf', { type: 'application/pdf' }), { applyAccept: false });
    expect((await screen.findByRole('alert')).textContent).toContain('notes.pdf');
    await userEvent.upload(screen.getByLabelText('Attach image'), png());
    expect((await screen.findByRole('note')).textContent).toContain('text-only');
  });

  it('sends an image alone, with no text', async () => {
    const onSend = vi.fn(async () => true);
    render(<MessageBox running={false} disabled={false} onSend={onSend} onStop={() => {}} />);
    await userEvent.upload(screen.getByLabelText('Attach image'), png());
    await screen.findByRole('list', { name: 'Attached images' });
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(onSend).toHaveBeenCalledWith('', [expect.objectContaining({ name: 'shot.png' })]));
  });

  it('says on a stored image that a provider refused it, and why', () => {
    const im = (hash: string, name: string) => ({ hash, mime: 'image/png', width: 4, height: 3, name });
    render(<RowImages images={[im('h1', 'kept.png'), im('h2', 'big.png')]} excluded={{ h2: '400 the server refused an image: Invalid image.' }} />);
    const note = screen.getByRole('note', { name: 'big.png excluded from context' });
    expect(note.textContent).toBe('Excluded from context: 400 the server refused an image: Invalid image.');
    expect(screen.queryByRole('note', { name: 'kept.png excluded from context' })).toBeNull();
  });
});
