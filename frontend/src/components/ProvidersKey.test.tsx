// A second provider's key typed in Settings → Providers: handed to Go on save, never shown again.
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

import { ProvidersSettings } from './ProvidersSettings';

beforeEach(() => {
  fake = makeFakeApi();
});

describe('a provider key typed in Settings', () => {
  it('is saved with the providers, then shown only as set', async () => {
    render(<ProvidersSettings />);
    await screen.findByRole('region', { name: 'Providers' });
    await userEvent.click(screen.getByRole('button', { name: 'Add provider' }));
    const form = screen.getByRole('form', { name: 'New provider' });
    await userEvent.type(within(form).getByRole('textbox', { name: 'Name' }), 'deepseek');
    await userEvent.type(within(form).getByRole('textbox', { name: 'Provider base URL' }), 'https://api.deepseek.com/v1');
    const key = within(form).getByLabelText('API key') as HTMLInputElement;
    expect(key.type).toBe('password');
    await userEvent.type(key, 'sk-typed-secret');
    await userEvent.click(within(form).getByRole('button', { name: 'Add' }));
    expect(screen.getByRole('listitem', { name: 'Provider deepseek' }).textContent).toContain('key typed (saved with the providers)');
    expect(fake.api.setProviderKey).not.toHaveBeenCalled();

    await userEvent.click(screen.getByRole('button', { name: 'Save providers' }));
    await screen.findByText('Providers saved.');
    // The entry is saved first (the key file is its own), then the key.
    expect(fake.api.saveProviders.mock.calls[0][0]).toEqual([{ name: 'deepseek', kind: 'openai', base_url: 'https://api.deepseek.com/v1', models: [] }]);
    expect(fake.api.setProviderKey).toHaveBeenCalledWith('deepseek', 'sk-typed-secret');
    const item = screen.getByRole('listitem', { name: 'Provider deepseek' });
    expect(item.textContent).toContain('key file /home/me/.config/loopdesk/keys/deepseek.key');
    expect(document.body.textContent).not.toContain('sk-typed-secret');

    // Editing again: the field is empty and says a key is set.
    await userEvent.click(within(item).getByRole('button', { name: 'Edit provider deepseek' }));
    const again = within(screen.getByRole('form', { name: 'Edit provider deepseek' })).getByLabelText('API key') as HTMLInputElement;
    expect(again.value).toBe('');
    expect(again.placeholder).toBe('A key is set: type to replace it');
  });
});
