// Settings → Telemetry: off by default; Save keeps the endpoint, protocol and contents toggle,
// never shows the headers back, and a turned-on endpoint that is not a URL is refused in words.
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { TelemetrySettings } from './TelemetrySettings';

beforeEach(() => {
  fake = makeFakeApi();
});

describe('Settings → Telemetry', () => {
  it('is off by default and saves what the person typed', async () => {
    render(<TelemetrySettings />);
    const on = screen.getByRole('checkbox', { name: 'Send runs to a collector' }) as HTMLInputElement;
    expect(on.checked).toBe(false);
    expect((await screen.findByRole('status')).textContent).toBe('Off.');
    await userEvent.click(on);
    await userEvent.type(screen.getByLabelText('Endpoint'), 'localhost:4318');
    await userEvent.click(screen.getByRole('button', { name: 'Save telemetry' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/want a base URL/);

    await userEvent.clear(screen.getByLabelText('Endpoint'));
    await userEvent.type(screen.getByLabelText('Endpoint'), 'http://127.0.0.1:4318');
    await userEvent.selectOptions(screen.getByLabelText('Protocol'), 'grpc');
    await userEvent.type(screen.getByLabelText('Headers'), 'x-team=secret');
    await userEvent.click(screen.getByRole('checkbox', { name: /Include contents/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Save telemetry' }));
    await screen.findByText('Saved.');
    expect(fake.api.saveTelemetry).toHaveBeenLastCalledWith({
      on: true,
      endpoint: 'http://127.0.0.1:4318',
      protocol: 'grpc',
      headers: 'x-team=secret',
      clear_headers: false,
      contents: true,
    });
    expect(screen.queryByRole('alert')).toBeNull();
    const headers = screen.getByLabelText('Headers') as HTMLInputElement;
    expect(headers.value).toBe('');
    expect(headers.placeholder).toBe('saved (type to replace)');
    expect(screen.getByRole('status').textContent).toMatch(/^Sending: 0 spans sent/);
  });
});
