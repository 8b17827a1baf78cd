import { render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ChunkKind, RowPayloads } from '../api/types';
import { chunk } from '../test/fakeApi';
import { Conversation } from './Conversation';

const row = <K extends ChunkKind>(seq: number, kind: K, payload: RowPayloads[K]) => chunk('s1', seq, kind, payload, 'r1');

const actions = { decide: vi.fn(async () => true), suggestRule: vi.fn(async () => null), readFile: vi.fn(async () => null) };

describe('hook rows in the conversation', () => {
  it('shows why a call was blocked on its card, and other hook runs as a line of their own', () => {
    const rows = [
      row(1, 'user', { text: 'clean up' }),
      row(2, 'hook', { event: 'UserPromptSubmit', command: 'echo ctx', source: 'personal', exit_code: 0, duration_ms: 3, decision: '', reason: '', stderr: '' }),
      row(3, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'c1', name: 'run_shell_command', arguments: '{"command":"rm -rf build"}' }] }),
      row(4, 'hook', { event: 'PreToolUse', command: './guard.sh', source: 'project', call_id: 'c1', tool: 'run_shell_command', exit_code: 2, duration_ms: 12, decision: 'deny', reason: 'rm -rf is not allowed here', stderr: 'rm -rf is not allowed here\n' }),
      row(5, 'approval', { call_id: 'c1', tool: 'run_shell_command', decision: 'denied', by: 'hook', reason: 'rm -rf is not allowed here' }),
      row(6, 'tool_result', { call_id: 'c1', name: 'run_shell_command', content: 'denied by hook: rm -rf is not allowed here', is_error: true }),
    ];
    render(
      <Conversation rows={rows} stream={{ subscribe: () => () => {}, get: () => ({ text: '', reasoning: '' }) } as never} run="" streamFrom={0} sent={null} outputs={{}} phase="idle" pending={[]} running={{}} outcome={null} error="" focus={null} actions={actions as never} />,
    );
    const card = screen.getByRole('list', { name: 'Hooks of this call' });
    expect(within(card).getByText(/PreToolUse hook \.\/guard\.sh \(exit 2, 12 ms\): deny — rm -rf is not allowed here/)).toBeTruthy();
    expect(screen.getByText(/Denied by a hook/)).toBeTruthy();
    expect(screen.getByText(/UserPromptSubmit hook echo ctx \(exit 0, 3 ms\)/)).toBeTruthy();
  });

  it('names the skill that pre-approved a call, and a run a hook stopped says why', () => {
    const rows = [
      row(1, 'user', { text: 'which git?' }),
      row(2, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'c2', name: 'run_shell_command', arguments: '{"command":"git --version"}' }] }),
      row(3, 'approval', { call_id: 'c2', tool: 'run_shell_command', decision: 'approved', by: 'skill:git-helper', reason: 'allow by skill:git-helper (allowed-tools: Bash(git:*))' }),
      row(4, 'tool_result', { call_id: 'c2', name: 'run_shell_command', content: 'git version 2.39.5', is_error: false }),
      row(5, 'hook', { event: 'PostToolUse', command: './gate.sh', source: 'personal', call_id: 'c2', tool: 'run_shell_command', exit_code: 0, duration_ms: 4, decision: 'stop', reason: 'the build is red', stderr: '' }),
    ];
    const outcome = { status: 'hook_stopped', error: 'stopped by a PostToolUse hook: the build is red' } as never;
    render(
      <Conversation rows={rows} stream={{ subscribe: () => () => {}, get: () => ({ text: '', reasoning: '' }) } as never} run="" streamFrom={0} sent={null} outputs={{}} phase="idle" pending={[]} running={{}} outcome={outcome} error="" focus={null} actions={actions as never} />,
    );
    expect(screen.getByText(/Approved by skill git-helper \(its allowed-tools\)/)).toBeTruthy();
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Stopped by a hook.');
    expect(alert.textContent).toContain('stopped by a PostToolUse hook: the build is red');
  });
});
