import { describe, expect, it } from 'vitest';
import { mcpStatus } from '../test/fakeApi';
import { changesOfPath, describeStatus, groupChanges, serverOf } from './checkpoints';

describe('checkpoints helpers', () => {
  it('groups changes by row and finds the rows of a path', () => {
    const by = groupChanges([
      { seq: 3, path: 'a', change: 'modified', size: 1, sha256: '', by: 'agent' },
      { seq: 3, path: 'd/x', change: 'created', size: 1, sha256: '', by: 'agent' },
      { seq: 5, path: 'a', change: 'deleted', size: 1, sha256: '', by: 'outside' },
    ]);
    expect(by[3].map((c) => c.path)).toEqual(['a', 'd/x']);
    expect(changesOfPath(by, 'a')).toEqual([{ seq: 3, change: 'modified', by: 'agent' }, { seq: 5, change: 'deleted', by: 'outside' }]);
    expect(changesOfPath(by, 'd')).toEqual([{ seq: 3, change: 'created', by: 'agent' }]);
  });

  it.each([
    ['mcp__everything__echo', [], 'everything'],
    ['mcp__a_b__echo', [{ name: 'mcp__a_b__echo', server: 'a.b', tool: 'echo' }], 'a.b'],
    ['run_shell_command', [], undefined],
  ] as const)('serverOf(%s)', (tool, names, want) => {
    expect(serverOf(new Map(names.map((n) => [n.name, n])), tool)).toBe(want);
  });

  it.each([
    [mcpStatus('x', { status: 'starting' }), 'Starting…'],
    [mcpStatus('x', { tools: ['a', 'b'] }), 'Ready (2 tools)'],
    [mcpStatus('x', { status: 'failed', reason: 'did not answer initialize within 10s' }), 'Failed: did not answer initialize within 10s'],
    [mcpStatus('x', { status: 'exited', exit_code: 1 }), 'Exited (code 1)'],
    [mcpStatus('x', { status: 'restarting', attempt: 4, max_restarts: 5 }), 'Restarting (4 of 5)'],
    [mcpStatus('x', { status: 'disabled' }), 'Disabled'],
  ])('describeStatus %#', (st, want) => expect(describeStatus(st)).toBe(want));
});
