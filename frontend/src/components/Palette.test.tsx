import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { PaletteEntry } from '../api/types';
import { MessageBox } from './MessageBox';

const entries: PaletteEntry[] = [
  { kind: 'command', name: 'review', description: 'Review a pull request', argument_hint: '[pr-number]', path: '/w/.claude/commands/review.md', error: '' },
  { kind: 'skill', name: 'release', description: 'Cut a release.', argument_hint: '', path: '/w/.claude/skills/release/SKILL.md', error: '' },
  { kind: 'command', name: 'broken', description: '', argument_hint: '', path: '/w/.claude/commands/broken.md', error: 'front matter is not valid YAML' },
];

function setup() {
  const onSend = vi.fn(async () => true);
  const onCommand = vi.fn(async () => true);
  const loadPalette = vi.fn(async () => entries);
  render(<MessageBox running={false} disabled={false} onSend={onSend} onStop={() => {}} onCommand={onCommand} loadPalette={loadPalette} />);
  return { onSend, onCommand, loadPalette, box: screen.getByRole('textbox', { name: 'Message' }) };
}

describe('the / palette', () => {
  it('lists commands and skills, filters as you type, and sends the chosen one as a command', async () => {
    const { box, onCommand, onSend, loadPalette } = setup();
    await userEvent.type(box, '/');
    const list = await screen.findByRole('listbox', { name: 'Commands and skills' });
    await waitFor(() => expect(list.querySelectorAll('[role=option]')).toHaveLength(3));
    expect(loadPalette).toHaveBeenCalledOnce();
    expect(screen.getByRole('option', { name: /broken.*cannot be used: front matter is not valid YAML/ }).getAttribute('aria-disabled')).toBe('true');
    await userEvent.type(box, 'rev');
    expect(screen.getAllByRole('option')).toHaveLength(1);
    await userEvent.keyboard('{Enter}');
    expect(box).toHaveProperty('value', '/review ');
    expect(screen.queryByRole('listbox')).toBeNull();
    await userEvent.type(box, '42{Enter}');
    expect(onCommand).toHaveBeenCalledWith('review', '42');
    expect(onSend).not.toHaveBeenCalled();
    expect(box).toHaveProperty('value', '');
  });

  it('sends a path-like or unknown "/" message as plain text, and Escape closes the palette', async () => {
    const { box, onCommand, onSend } = setup();
    await userEvent.type(box, '/usr');
    await screen.findByText('No command or skill matches.');
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('listbox')).toBeNull();
    await userEvent.type(box, ' is missing{Enter}');
    expect(onSend).toHaveBeenCalledWith('/usr is missing');
    expect(onCommand).not.toHaveBeenCalled();
  });
});
