import { render, screen, within } from '@testing-library/react';
import { beforeEach, expect, it, vi } from 'vitest';
import { makeFakeApi, mcpStatus } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { McpSettings } from './McpSettings';

beforeEach(() => {
  fake = makeFakeApi();
  fake.state.mcpConfig = { mcpServers: { everything: { command: '/opt/mcp/mcp-server-everything' } } };
  fake.state.mcpStatuses = [mcpStatus('everything', { tools: ['mcp__everything__echo'] })];
});

it("shows what a server's tool schemas add to every request, before any run uses it", async () => {
  const view = fake.api.mcpServers.getMockImplementation()!;
  fake.api.mcpServers.mockImplementation(async () => ({ ...(await view()), schema_tokens: { everything: 1390 } }));
  render(<McpSettings />);
  const item = await screen.findByRole('listitem', { name: 'MCP server everything' });
  expect(await within(item).findByText(/about 1\.4k tokens in every request/)).toBeTruthy();
});
