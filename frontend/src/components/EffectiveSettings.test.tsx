import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { SettingsPanel } from './SettingsPanel';

beforeEach(() => {
  fake = makeFakeApi();
});

describe('Settings: what is in effect', () => {
  it('shows the values the next run uses and where each comes from, an environment variable over what is saved', async () => {
    fake.state.effective = {
      rows: [
        { setting: 'base_url', value: 'http://127.0.0.1:9/env/v1', source: 'env', detail: 'OPENAI_BASE_URL' },
        { setting: 'api_key', value: true, source: 'saved', detail: '/home/me/.config/loopdesk/api_key' },
        { setting: 'max_turns', value: 0, source: 'default', detail: '' },
      ],
      error: '',
    };
    render(<SettingsPanel settings={fake.state.settings} onSaved={vi.fn()} onPreviewTheme={vi.fn()} />);
    await userEvent.click(screen.getByText('In effect: what the next run uses, and from where'));
    const table = await screen.findByRole('table', { name: 'Settings in effect' });
    const base = within(table).getByText('base_url').closest('tr') as HTMLElement;
    expect(base.textContent).toContain('http://127.0.0.1:9/env/v1');
    expect(base.textContent).toContain('environment (OPENAI_BASE_URL)');
    expect((within(table).getByText('api_key').closest('tr') as HTMLElement).textContent).toContain('found');
    expect((within(table).getByText('max_turns').closest('tr') as HTMLElement).textContent).toContain('no limit');
  });

  it('says why saved settings cannot be used, in the words the command line uses', async () => {
    const problem = 'saved setting ui.approval_mode: unknown approval mode "sometimes" (ask, read-only, sandboxed, auto or deny); choose a valid value in the window\'s Settings and save';
    fake.state.effective = { rows: [], error: problem };
    render(<SettingsPanel settings={{ ...fake.state.settings, configured: false, problem }} onSaved={vi.fn()} onPreviewTheme={vi.fn()} />);
    expect(screen.getAllByRole('alert')[0].textContent).toBe(problem);
    expect(screen.queryByText(/Choose an OpenAI-compatible endpoint to start/)).toBeNull();
  });
});
