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

import { ProvidersSettings } from './ProvidersSettings';
import { SessionModel } from './SessionModel';

beforeEach(() => {
  fake = makeFakeApi();
});

describe('ProvidersSettings', () => {
  it('adds a provider naming where its key is, tests it, and writes the file only on save', async () => {
    render(<ProvidersSettings />);
    const section = await screen.findByRole('region', { name: 'Providers' });
    expect(within(section).getByRole('listitem', { name: 'Provider default' })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Add provider' }));
    const form = screen.getByRole('form', { name: 'New provider' });
    await userEvent.type(within(form).getByRole('textbox', { name: 'Name' }), 'claude');
    await userEvent.selectOptions(within(form).getByRole('combobox', { name: 'Kind' }), 'anthropic');
    await userEvent.type(within(form).getByRole('textbox', { name: 'Provider base URL' }), 'https://api.anthropic.com');
    await userEvent.type(within(form).getByRole('textbox', { name: 'Key environment variable' }), 'ANTHROPIC_API_KEY');
    await userEvent.click(within(form).getByRole('button', { name: 'Add' }));
    expect(fake.api.saveProviders).not.toHaveBeenCalled();

    const item = screen.getByRole('listitem', { name: 'Provider claude' });
    expect(item.textContent).toContain('key from $ANTHROPIC_API_KEY');
    await userEvent.click(within(item).getByRole('button', { name: 'Test claude connection' }));
    expect(await within(item).findByText('Connected: 2 model(s).')).toBeTruthy();
    // An empty model list is filled from the server's.
    expect(within(screen.getByRole('listitem', { name: 'Provider claude' })).getByText(/Models: fake-model, other-model/)).toBeTruthy();

    await userEvent.click(screen.getByRole('button', { name: 'Save providers' }));
    await screen.findByText('Providers saved.');
    expect(fake.api.saveProviders).toHaveBeenCalledWith([
      { name: 'claude', kind: 'anthropic', base_url: 'https://api.anthropic.com', api_key_env: 'ANTHROPIC_API_KEY', models: ['fake-model', 'other-model'] },
    ]);
  });

  it('refuses the reserved name and shows why the file could not be read', async () => {
    fake.state.providersError = 'providers file /x/providers.json: provider "a": unknown kind "b"';
    render(<ProvidersSettings />);
    expect(await screen.findByText(/unknown kind "b"/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Add provider' }));
    const form = screen.getByRole('form', { name: 'New provider' });
    await userEvent.type(within(form).getByRole('textbox', { name: 'Name' }), 'default');
    await userEvent.click(within(form).getByRole('button', { name: 'Add' }));
    expect(within(form).getByRole('alert').textContent).toContain('"default" is the endpoint above');
  });
});

describe('SessionModel', () => {
  it('shows what the next run uses and changes it', async () => {
    fake.state.providers = [{ name: 'local', kind: 'openai', base_url: 'http://l/v1', models: ['m1', 'm2'] }];
    const onSet = vi.fn(async () => '');
    render(<SessionModel provider="default" model="fake-model" onSet={onSet} />);
    await userEvent.click(screen.getByRole('button', { name: /Provider and model of the next run: default · fake-model/ }));
    await screen.findByRole('option', { name: 'local' });
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Session provider' }), 'local');
    expect(screen.getByRole('combobox', { name: 'Session model' })).toHaveProperty('value', 'm1');
    await userEvent.click(screen.getByRole('button', { name: 'Use for the next run' }));
    expect(onSet).toHaveBeenCalledWith('local', 'm1');
  });

  it('keeps the chooser open with the error when the change is refused', async () => {
    const onSet = vi.fn(async () => 'unknown provider "gone"');
    render(<SessionModel provider="default" model="fake-model" onSet={onSet} />);
    await userEvent.click(screen.getByRole('button', { name: /Change/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Use for the next run' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('unknown provider "gone"'));
    expect(screen.getByRole('form', { name: 'Provider and model of the next run' })).toBeTruthy();
  });
});
