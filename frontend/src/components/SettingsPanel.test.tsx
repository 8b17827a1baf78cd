import { render, screen, waitFor, within } from '@testing-library/react';
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

describe('SettingsPanel', () => {
  it('saves mode, budgets, prices, context windows and theme with the endpoint', async () => {
    const onSaved = vi.fn();
    const onPreviewTheme = vi.fn();
    render(<SettingsPanel settings={fake.state.settings} onSaved={onSaved} onPreviewTheme={onPreviewTheme} />);
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Default approval mode' }), 'read-only');
    const turns = screen.getByRole('spinbutton', { name: 'Max turns' });
    await userEvent.clear(turns);
    await userEvent.type(turns, '7');
    await userEvent.click(screen.getByRole('button', { name: 'Add price' }));
    await userEvent.type(screen.getByRole('spinbutton', { name: 'Input price 2' }), '3');
    await userEvent.click(screen.getByRole('button', { name: 'Remove context window 1' }));
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Theme' }), 'dark');
    expect(onPreviewTheme).toHaveBeenCalledWith('dark');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved.');
    const input = fake.api.saveSettings.mock.calls[0][0];
    expect(input).toMatchObject({
      base_url: 'http://127.0.0.1:9/v1',
      model: 'fake-model',
      api_key: '',
      clear_key: false,
      approval_mode: 'read-only',
      budgets: { max_turns: 7, max_tool_calls: 50, max_tokens: 0, max_cost_usd: 0, timeout_seconds: 600 },
      prices: [
        { model: 'gpt-4.1-mini', input_per_mtok: 0.4, output_per_mtok: 1.6 },
        { model: 'fake-model', input_per_mtok: 3, output_per_mtok: 0 },
      ],
      context_windows: [],
      theme: 'dark',
    });
    expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ theme: 'dark' }));
  });

  it('saves a vision setting per provider and model', async () => {
    render(<SettingsPanel settings={{ ...fake.state.settings, vision: [{ provider: 'default', model: 'old-model', vision: 'on' }] }} onSaved={() => {}} />);
    expect((screen.getByRole('combobox', { name: 'Vision 1' }) as HTMLSelectElement).value).toBe('on');
    await userEvent.click(screen.getByRole('button', { name: 'Add vision setting' }));
    expect((screen.getByRole('textbox', { name: 'Vision model 2' }) as HTMLInputElement).value).toBe('fake-model');
    expect((screen.getByRole('combobox', { name: 'Vision 2' }) as HTMLSelectElement).value).toBe('off');
    await userEvent.click(screen.getByRole('button', { name: 'Remove vision setting 1' }));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved.');
    expect(fake.api.saveSettings.mock.calls[0][0].vision).toEqual([{ provider: 'default', model: 'fake-model', vision: 'off' }]);
  });

  it('lists the saved rules and deletes one', async () => {
    fake.state.rules = [
      { id: 'r1', tool: 'run_shell_command', pattern: 'git status*', effect: 'allow', scope: 'workspace', scope_id: '/p', created_at: '' },
      { id: 'r2', tool: 'write_file', pattern: '*', effect: 'deny', scope: 'session', scope_id: 's1', created_at: '' },
    ];
    render(<SettingsPanel settings={fake.state.settings} onSaved={() => {}} />);
    const table = screen.getByRole('table', { name: 'Saved rules' });
    await within(table).findByText('git status*');
    await userEvent.click(within(table).getByRole('button', { name: 'Delete rule run_shell_command git status*' }));
    await waitFor(() => expect(within(table).queryByText('git status*')).toBeNull());
    expect(fake.api.deleteRule).toHaveBeenCalledWith('r1');
    expect(within(table).getByText('write_file')).toBeTruthy();
  });

  it('offers the models the server lists after Test connection', async () => {
    render(<SettingsPanel settings={{ ...fake.state.settings, model: '' }} onSaved={() => {}} />);
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(await screen.findByText('Connected: 2 model(s) available.')).toBeTruthy();
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveProperty('value', 'fake-model');
    const options = document.querySelectorAll('datalist option');
    expect([...options].map((o) => o.getAttribute('value'))).toEqual(['fake-model', 'other-model']);
  });

  it('can forget a saved key', async () => {
    fake.state.settings = { ...fake.state.settings, has_key: true, key_source: 'file' };
    render(<SettingsPanel settings={fake.state.settings} onSaved={() => {}} />);
    await userEvent.click(screen.getByRole('checkbox', { name: 'Forget the saved key' }));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved.');
    expect(fake.api.saveSettings.mock.calls[0][0]).toMatchObject({ api_key: '', clear_key: true });
  });
});
