import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import { makeFakeApi } from '../test/fakeApi';

const fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { AgentsSettings } from './AgentsSettings';

describe('AgentsSettings', () => {
  it('lists the definitions, an invalid file with its path and reason', async () => {
    fake.state.agents = [
      { name: 'tester', description: 'Runs tests', source: '/p/.claude/agents/tester.md', tools: ['read_file'], model: 'inherit', error: '' },
      { name: 'broken', description: '', source: '/p/.claude/agents/broken.md', tools: null, model: '', error: 'description is required' },
    ];
    render(<AgentsSettings sessionID="s1" />);
    const table = screen.getByRole('table', { name: 'Agent definitions' });
    expect(await within(table).findByText('Not used: description is required')).toBeTruthy();
    expect(within(table).getByText('/p/.claude/agents/broken.md')).toBeTruthy();
    expect(within(table).getByText('Runs tests')).toBeTruthy();
    expect(fake.api.agentDefinitions).toHaveBeenCalledWith('s1');
  });
});
