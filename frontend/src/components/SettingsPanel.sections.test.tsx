// Settings in sections: a list of them that brings each into view, one Save for the form
// below the scrolling area, and the sections that save themselves saying so.
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

describe('Settings sections', () => {
  it('lists its sections and brings the one chosen into view', async () => {
    const seen: string[] = [];
    vi.spyOn(HTMLElement.prototype, 'scrollIntoView').mockImplementation(function (this: HTMLElement) {
      seen.push(this.id);
    });
    render(<SettingsPanel settings={fake.state.settings} onSaved={() => {}} />);
    const nav = screen.getByRole('navigation', { name: 'Settings sections' });
    const names = within(nav).getAllByRole('button').map((b) => b.textContent);
    for (const n of ['Endpoint', 'Approvals', 'Budgets', 'Prices', 'Context windows', 'Providers', 'MCP servers', 'Hooks', 'Skills', 'Agents', 'Appearance']) expect(names).toContain(n);
    await userEvent.click(within(nav).getByRole('button', { name: 'Budgets' }));
    expect(seen).toEqual(['settings-budgets']);
    expect(within(nav).getByRole('button', { name: 'Budgets' }).getAttribute('aria-current')).toBe('true');
    // The section brought into view holds the budgets.
    const section = document.getElementById('settings-budgets')!;
    expect(within(section).getByRole('spinbutton', { name: 'Max turns' })).toBeTruthy();
    vi.restoreAllMocks();
  });

  it('has one Save, below the scrolling area, and the sections that save themselves say so', async () => {
    render(<SettingsPanel settings={fake.state.settings} onSaved={() => {}} onClose={() => {}} />);
    const area = screen.getByRole('region', { name: 'Section contents' });
    const save = screen.getByRole('button', { name: 'Save' });
    expect(area.contains(save)).toBe(false);
    expect(screen.getAllByRole('button', { name: /^Save/ }).filter((b) => !area.contains(b))).toEqual([save]);
    const providers = document.getElementById('settings-providers')!;
    expect(within(providers).getByText(/This section saves itself, with Save providers/)).toBeTruthy();
    const mcp = document.getElementById('settings-mcp')!;
    expect(within(mcp).getByText(/This section saves itself, with Save MCP servers/)).toBeTruthy();
    expect(within(document.getElementById('settings-budgets')!).queryByText(/saves itself/)).toBeNull();
    expect(screen.getByText(/Save writes Endpoint, Approvals, Budgets, Prices, Context windows, Images, Appearance/)).toBeTruthy();
  });
});
