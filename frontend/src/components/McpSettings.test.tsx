import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
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
  fake.state.mcpConfig = {
    mcpServers: {
      everything: { command: '/opt/mcp/mcp-server-everything' },
      broken: { command: 'no-such-command-xyz' },
    },
  };
  fake.state.mcpStatuses = [
    mcpStatus('everything', { tools: ['mcp__everything__echo', 'mcp__everything__get-sum', 'mcp__everything__get_env_2'] }),
    mcpStatus('broken', { status: 'failed', reason: 'start: exec: "no-such-command-xyz": executable file not found in $PATH', stderr_tail: 'boom <b>bold</b>' }),
  ];
  fake.state.mcpNames = [
    { name: 'mcp__everything__echo', server: 'everything', tool: 'echo' },
    { name: 'mcp__everything__get-sum', server: 'everything', tool: 'get-sum' },
    { name: 'mcp__everything__get_env_2', server: 'everything', tool: 'get.env', note: 'renamed: mcp__everything__get_env is taken by get_env' },
  ];
  fake.state.mcpLogs.set('broken', 'line 1\n<script>alert(1)</script>\n');
});

const server = (name: string) => screen.findByRole('listitem', { name: `MCP server ${name}` });

describe('McpSettings', () => {
  it('shows each server with its live status, failure reason, stderr tail, tools and renames', async () => {
    render(<McpSettings />);
    const ok = await server('everything');
    expect(within(ok).getByRole('status', { name: 'Status of everything' }).textContent).toBe('Ready (3 tools)');
    const tools = within(ok).getByRole('list', { name: 'Tools of everything' });
    expect(within(tools).getByText('mcp__everything__echo')).toBeTruthy();
    expect(tools.textContent).toContain('renamed from get.env: renamed: mcp__everything__get_env is taken by get_env');

    const bad = await server('broken');
    expect(within(bad).getByRole('status').textContent).toContain('Failed: start: exec: "no-such-command-xyz"');
    const tail = within(bad).getByLabelText('Stderr of broken');
    expect(tail.textContent).toBe('boom <b>bold</b>');
    expect(tail.querySelector('b')).toBeNull();

    // Live: mcp:status moves a server through restarting to ready.
    act(() => fake.emitMcp(mcpStatus('broken', { status: 'restarting', attempt: 2, max_restarts: 5 })));
    expect(within(bad).getByRole('status').textContent).toBe('Restarting (2 of 5)');
    act(() => fake.emitMcp(mcpStatus('broken', { status: 'exited', exit_code: 3 })));
    expect(within(bad).getByRole('status').textContent).toBe('Exited (code 3)');
    act(() => fake.emitMcp(mcpStatus('broken', { status: 'ready', tools: ['mcp__broken__x'] })));
    expect(within(bad).getByRole('status').textContent).toBe('Ready (1 tool)');
  });

  it('restarts a server and shows its log as inert text in a dialog', async () => {
    render(<McpSettings />);
    await server('broken');
    await userEvent.click(screen.getByRole('button', { name: 'Restart broken' }));
    expect(fake.api.restartMCPServer).toHaveBeenCalledWith('broken');
    await userEvent.click(screen.getByRole('button', { name: 'Log of broken' }));
    const dialog = await screen.findByRole('dialog', { name: 'Log of broken' });
    const log = within(dialog).getByLabelText('Server log');
    expect(log.textContent).toBe('line 1\n<script>alert(1)</script>\n');
    expect(log.querySelector('script')).toBeNull();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('says plainly when the configuration file is bad', async () => {
    fake.state.mcpError = '/home/me/.config/loopdesk/mcp.json: server "x": invalid character \'}\' looking for beginning of value';
    fake.state.mcpConfig = { mcpServers: {} };
    fake.state.mcpStatuses = [];
    render(<McpSettings />);
    expect((await screen.findByRole('alert')).textContent).toContain('The configuration file could not be read: /home/me/.config/loopdesk/mcp.json: server "x"');
  });

  it('adds stdio and HTTP servers, edits, removes, and writes nothing until Save', async () => {
    render(<McpSettings />);
    await server('everything');
    const save = screen.getByRole('button', { name: 'Save MCP servers' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);

    await userEvent.type(screen.getByRole('textbox', { name: 'Server name' }), 'files');
    await userEvent.type(screen.getByRole('textbox', { name: 'Command' }), 'npx');
    await userEvent.type(screen.getByRole('textbox', { name: 'Arguments' }), '-y{Enter}@modelcontextprotocol/server-filesystem{Enter}/tmp');
    await userEvent.type(screen.getByRole('textbox', { name: 'Environment' }), 'TOKEN=${{GH_TOKEN}');
    await userEvent.click(screen.getByRole('button', { name: 'Add server' }));

    await userEvent.type(screen.getByRole('textbox', { name: 'Server name' }), 'remote');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Transport' }), 'http');
    await userEvent.type(screen.getByRole('textbox', { name: 'URL' }), 'http://127.0.0.1:3001/mcp');
    await userEvent.type(screen.getByRole('textbox', { name: 'Headers' }), 'Authorization: Bearer x');
    await userEvent.click(screen.getByRole('button', { name: 'Add server' }));

    const ev = await server('everything');
    await userEvent.click(within(ev).getByRole('checkbox', { name: 'Trusted' }));
    const timeout = within(ev).getByRole('spinbutton', { name: 'Timeout of everything (seconds)' });
    await userEvent.clear(timeout);
    await userEvent.type(timeout, '30');
    await userEvent.click(within(await server('broken')).getByRole('checkbox', { name: 'Enabled' }));
    expect((await server('files')).textContent).toContain('Not started (save to start it)');

    // Edit the new server's command.
    await userEvent.click(screen.getByRole('button', { name: 'Edit files' }));
    const cmd = screen.getByRole('textbox', { name: 'Command' });
    await userEvent.clear(cmd);
    await userEvent.type(cmd, '/usr/bin/npx');
    await userEvent.click(screen.getByRole('button', { name: 'Update server' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove remote' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Server name' }), 'remote');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Transport' }), 'http');
    await userEvent.type(screen.getByRole('textbox', { name: 'URL' }), 'http://127.0.0.1:3002/mcp');
    await userEvent.click(screen.getByRole('button', { name: 'Add server' }));

    expect(fake.api.saveMCPConfig).not.toHaveBeenCalled();
    await userEvent.click(save);
    await screen.findByText('MCP servers saved.');
    expect(fake.api.saveMCPConfig).toHaveBeenCalledTimes(1);
    expect(fake.api.saveMCPConfig.mock.calls[0][0]).toEqual({
      mcpServers: {
        everything: { command: '/opt/mcp/mcp-server-everything', trusted: true, timeout_s: 30 },
        broken: { command: 'no-such-command-xyz', disabled: true },
        files: { command: '/usr/bin/npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { TOKEN: '${GH_TOKEN}' } },
        remote: { type: 'http', url: 'http://127.0.0.1:3002/mcp' },
      },
    });
  });

  it('refuses a server without a command or with a name taken', async () => {
    render(<McpSettings />);
    await server('everything');
    await userEvent.type(screen.getByRole('textbox', { name: 'Server name' }), 'everything');
    await userEvent.click(screen.getByRole('button', { name: 'Add server' }));
    expect(screen.getByRole('alert').textContent).toBe('A server named “everything” exists already.');
    await userEvent.clear(screen.getByRole('textbox', { name: 'Server name' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Server name' }), 'new');
    await userEvent.click(screen.getByRole('button', { name: 'Add server' }));
    expect(screen.getByRole('alert').textContent).toBe('A stdio server needs a command.');
  });

  it('imports the servers of Claude Desktop for review, then saves them', async () => {
    fake.state.claudeDesktop = { mcpServers: { github: { command: 'gh-mcp', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } } } };
    render(<McpSettings />);
    await server('everything');
    await userEvent.click(screen.getByRole('button', { name: 'Import from Claude Desktop' }));
    expect((await server('github')).textContent).toContain('gh-mcp');
    expect(fake.api.saveMCPConfig).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Save MCP servers' }));
    await waitFor(() => expect(fake.api.saveMCPConfig).toHaveBeenCalled());
    expect(Object.keys(fake.api.saveMCPConfig.mock.calls[0][0].mcpServers ?? {}).sort()).toEqual(['broken', 'everything', 'github']);
  });
});
