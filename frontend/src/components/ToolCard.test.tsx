import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Change, DecisionInput, FileDiff, ProposedHunk, RuleInput } from '../api/types';
import type { PendingCall } from '../state/session';
import { CheckpointContext } from './CheckpointContext';
import { ToolCard, type CardActions } from './ToolCard';

function actions(over: Partial<CardActions> = {}) {
  return {
    decide: vi.fn(async (_id: string, _d: DecisionInput) => true),
    suggestRule: vi.fn(async (): Promise<RuleInput | null> => ({ tool: 'run_shell_command', pattern: 'git status*', effect: 'allow', scope: 'session', session_id: 's1' })),
    readFile: vi.fn(async (): Promise<string | null> => null),
    ...over,
  };
}

const shell = { id: 'c1', name: 'run_shell_command', arguments: '{"command":"git status --short"}' };
const pendingShell: PendingCall = { run_id: 'r1', call_id: 'c1', name: 'run_shell_command', arguments: shell.arguments, read_only: false, sandboxed: false, network: false };

describe('ToolCard', () => {
  it('says on the card whether a shell command will run sandboxed, or asks for network, and on the result whether it did', () => {
    const { rerender } = render(<ToolCard call={shell} pending={{ ...pendingShell, sandboxed: true }} actions={actions()} />);
    expect(screen.getByLabelText('Sandbox').textContent).toMatch(/Will run in the sandbox/);
    rerender(<ToolCard call={shell} pending={{ ...pendingShell, sandboxed: false, network: true }} actions={actions()} />);
    expect(screen.getByLabelText('Sandbox').textContent).toMatch(/Asks for network/);
    rerender(<ToolCard call={shell} pending={{ ...pendingShell, sandboxed: false }} actions={actions()} />);
    expect(screen.getByLabelText('Sandbox').textContent).toMatch(/Not sandboxed/);
    rerender(<ToolCard call={shell} actions={actions()} result={{ seq: 4, payload: { call_id: 'c1', name: 'run_shell_command', content: 'ok', is_error: false, sandboxed: true } }} />);
    expect(screen.getByLabelText('Sandbox').textContent).toBe('Ran in the sandbox');
  });

  it('shows the shell command itself and streams its output', () => {
    const { rerender } = render(<ToolCard call={shell} output={"M a.go\n"} running={{ run_id: 'r1', call_id: 'c1', name: 'run_shell_command', since: Date.now() }} actions={actions()} />);
    expect(screen.getByLabelText('Command').textContent).toBe('$ git status --short');
    expect(screen.getByLabelText('Output').textContent).toBe('M a.go\n');
    expect(screen.getByText(/^Running/)).toBeTruthy();
    rerender(<ToolCard call={shell} output={"M a.go\nM b.go\n"} actions={actions()} result={{ seq: 4, payload: { call_id: 'c1', name: 'run_shell_command', content: 'M a.go\nM b.go', is_error: false } }} />);
    // The stored result replaces the live output.
    expect(screen.queryByLabelText('Output')).toBeNull();
    expect(screen.getByText('Result · 2 lines')).toBeTruthy();
  });

  it('diffs an edit_file call from its old and new strings, as text', async () => {
    const call = { id: 'c2', name: 'edit_file', arguments: JSON.stringify({ path: 'main.go', old_string: 'a := 1\n<b>x</b>\n', new_string: 'a := 2\n<b>x</b>\n' }) };
    const { container } = render(<ToolCard call={call} actions={actions()} />);
    // The diff view loads on first use (LazyDiffView).
    const diff = await screen.findByRole('figure', { name: 'Change to main.go' });
    expect(within(diff).getByText('- a := 1')).toBeTruthy();
    expect(within(diff).getByText('+ a := 2')).toBeTruthy();
    expect(container.querySelector('b')).toBeNull();
  });

  it('diffs a pending write_file against the file as it is now', async () => {
    const call = { id: 'c3', name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'one\nthree\n' }) };
    const a = actions({ readFile: vi.fn(async () => 'one\ntwo\n') });
    render(<ToolCard call={call} pending={{ run_id: 'r1', call_id: 'c3', name: 'write_file', arguments: call.arguments, read_only: false, sandboxed: false, network: false }} actions={a} />);
    expect(await screen.findByText('- two')).toBeTruthy();
    expect(screen.getByText('+ three')).toBeTruthy();
    expect(a.readFile).toHaveBeenCalledWith('notes.txt');
  });

  it('approves, denies and denies with a reason', async () => {
    const a = actions();
    render(<ToolCard call={shell} pending={pendingShell} actions={a} />);
    await userEvent.click(screen.getByRole('button', { name: 'Approve' }));
    expect(a.decide).toHaveBeenLastCalledWith('c1', { approved: true, reason: '', arguments: '', always: null });
    await userEvent.click(screen.getByRole('button', { name: 'Deny' }));
    expect(a.decide).toHaveBeenLastCalledWith('c1', { approved: false, reason: '', arguments: '', always: null });
    await userEvent.click(screen.getByRole('button', { name: 'Deny with reason' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Reason' }), 'not on main{Enter}');
    expect(a.decide).toHaveBeenLastCalledWith('c1', { approved: false, reason: 'not on main', arguments: '', always: null });
  });

  it('y and n act on the focused card only', async () => {
    const a = actions();
    render(<ToolCard call={shell} pending={pendingShell} actions={a} />);
    const card = screen.getByRole('region', { name: 'Tool call run_shell_command' });
    card.focus();
    fireEvent.keyDown(card, { key: 'y' });
    await waitFor(() => expect(a.decide).toHaveBeenCalledWith('c1', expect.objectContaining({ approved: true })));
    vi.mocked(a.decide).mockClear();
    // Typing in the reason box is not a decision.
    await userEvent.click(screen.getByRole('button', { name: 'Deny with reason' }));
    fireEvent.keyDown(screen.getByRole('textbox', { name: 'Reason' }), { key: 'n' });
    expect(a.decide).not.toHaveBeenCalled();
    fireEvent.keyDown(card, { key: 'n' });
    await waitFor(() => expect(a.decide).toHaveBeenCalledWith('c1', expect.objectContaining({ approved: false })));
  });

  it('Always allow opens the exact rule, editable, and saves it with the approval', async () => {
    const a = actions();
    render(<ToolCard call={shell} pending={pendingShell} actions={a} />);
    await userEvent.click(screen.getByRole('button', { name: 'Always allow' }));
    const dialog = await screen.findByRole('dialog', { name: 'Always allow rule' });
    const pattern = within(dialog).getByRole('textbox', { name: 'Pattern' });
    expect(pattern).toHaveProperty('value', 'git status*');
    await userEvent.clear(pattern);
    await userEvent.type(pattern, 'git *');
    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: 'Scope' }), 'workspace');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save rule and approve' }));
    expect(a.decide).toHaveBeenCalledWith('c1', {
      approved: true,
      reason: '',
      arguments: '',
      always: { tool: 'run_shell_command', pattern: 'git *', effect: 'allow', scope: 'workspace', session_id: 's1' },
    });
  });

  it('Edit arguments approves the edited call and refuses what is not a JSON object', async () => {
    const a = actions();
    render(<ToolCard call={shell} pending={pendingShell} actions={a} />);
    await userEvent.click(screen.getByRole('button', { name: 'Edit arguments' }));
    const box = screen.getByRole('textbox', { name: 'Arguments' });
    fireEvent.change(box, { target: { value: 'not json' } });
    await userEvent.click(screen.getByRole('button', { name: 'Approve edited call' }));
    expect(screen.getByRole('alert').textContent).toMatch(/JSON object/);
    expect(a.decide).not.toHaveBeenCalled();
    fireEvent.change(box, { target: { value: '{"command": "git status"}' } });
    await userEvent.click(screen.getByRole('button', { name: 'Approve edited call' }));
    expect(a.decide).toHaveBeenCalledWith('c1', { approved: true, reason: '', arguments: '{"command":"git status"}', always: null });
  });

  it('shows who decided and the reason once recorded', () => {
    render(
      <ToolCard
        call={shell}
        approval={{ seq: 3, payload: { call_id: 'c1', tool: 'run_shell_command', decision: 'denied', by: 'person', reason: 'too risky' } }}
        result={{ seq: 4, payload: { call_id: 'c1', name: 'run_shell_command', content: 'denied: too risky', is_error: true } }}
        actions={actions()}
      />,
    );
    expect(screen.getByText(/Denied by you/).textContent).toContain('too risky');
    expect(screen.getByText('Denied')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
  });

  it('shows the edited arguments as what ran, and what the model asked for', () => {
    render(
      <ToolCard
        call={shell}
        approval={{ seq: 3, payload: { call_id: 'c1', tool: 'run_shell_command', decision: 'approved', by: 'person', reason: '', arguments: '{"command":"git status"}' } }}
        actions={actions()}
      />,
    );
    expect(screen.getByLabelText('Command').textContent).toBe('$ git status');
    expect(screen.getByText(/Arguments edited before it ran/)).toBeTruthy();
    expect(screen.getByText(/git status --short/)).toBeTruthy();
  });

  it('keeps the controls when Go refuses the decision', async () => {
    const a = actions({ decide: vi.fn(async () => false) });
    render(<ToolCard call={shell} pending={pendingShell} actions={a} />);
    await act(async () => {
      await userEvent.click(screen.getByRole('button', { name: 'Deny with reason' }));
    });
    await userEvent.type(screen.getByRole('textbox', { name: 'Reason' }), 'no{Enter}');
    expect(screen.getByRole('textbox', { name: 'Reason' })).toHaveProperty('value', 'no');
  });
});

describe('ToolCard under review', () => {
  const proposed = (n: number): ProposedHunk => ({
    hunk: n, old_start: n, old_lines: 1, new_start: n, new_lines: 1, patch: `@@ -${n} +${n} @@\n-a\n+b\n`, old: 'a\n', new: 'b\n',
  });
  const write = { id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'b\nb\nb\n' }) };
  const pendingWrite = (n: number): PendingCall => ({
    run_id: 'r1', call_id: 'w1', name: 'write_file', arguments: write.arguments, read_only: false, sandboxed: false, network: false,
    hunks: Array.from({ length: n }, (_, i) => proposed(i + 1)),
  });

  it('has one Approve, which writes what the review shows: keep, drop and edit for each hunk', async () => {
    const a = actions();
    render(<ToolCard call={write} pending={pendingWrite(3)} actions={a} />);
    await userEvent.click(screen.getByRole('radio', { name: 'Drop hunk 2' }));
    await userEvent.click(screen.getByRole('radio', { name: 'Edit hunk 3' }));
    const text = screen.getByRole('textbox', { name: 'Text of hunk 3' });
    await userEvent.clear(text);
    await userEvent.type(text, 'mine');
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(screen.getAllByRole('button', { name: /^Approve/ }).map((b) => b.textContent)).toEqual(['Approve 2 of 3 hunks']);
    await userEvent.click(screen.getByRole('button', { name: 'Approve 2 of 3 hunks' }));
    expect(a.decide).toHaveBeenCalledWith('w1', expect.objectContaining({
      approved: true,
      hunks: [
        { hunk: 1, action: 'keep' },
        { hunk: 2, action: 'drop', text: undefined },
        { hunk: 3, action: 'edit', text: 'mine' },
      ],
    }));
  });

  it('approves with the hunk choices on y too', async () => {
    const a = actions();
    const { container } = render(<ToolCard call={write} pending={pendingWrite(2)} actions={a} />);
    await userEvent.click(screen.getByRole('radio', { name: 'Drop hunk 2' }));
    fireEvent.keyDown(container.querySelector('.tool-card')!, { key: 'y' });
    await waitFor(() => expect(a.decide).toHaveBeenCalled());
    expect(vi.mocked(a.decide).mock.calls[0][1]).toMatchObject({ approved: true, hunks: [{ hunk: 1, action: 'keep' }, { hunk: 2, action: 'drop' }] });
  });

  it('says a reviewed call was reviewed, not that its arguments were edited', () => {
    render(
      <ToolCard
        call={write}
        approval={{ seq: 3, payload: { call_id: 'w1', tool: 'write_file', decision: 'approved', by: 'person', reason: '', arguments: JSON.stringify({ path: 'a.txt', content: 'b\na\n' }), reviewed: ['keep', 'drop'] } }}
        actions={actions()}
      />,
    );
    expect(screen.getByText('Reviewed before it ran: hunk 1 kept, hunk 2 dropped')).toBeTruthy();
    expect(screen.queryByText(/Arguments edited/)).toBeNull();
  });
});

describe('ToolCard once done', () => {
  it('says nothing about the sandbox of a shell command that was denied: it did not run', () => {
    render(
      <ToolCard
        call={shell}
        approval={{ seq: 3, payload: { call_id: 'c1', tool: 'run_shell_command', decision: 'denied', by: 'person', reason: '' } }}
        result={{ seq: 4, payload: { call_id: 'c1', name: 'run_shell_command', content: 'denied by the person', is_error: true, sandboxed: false } }}
        actions={actions()}
      />,
    );
    expect(screen.queryByLabelText('Sandbox')).toBeNull();
    expect(screen.queryByText(/Ran without the sandbox/)).toBeNull();
  });

  it('diffs a finished write_file against the file as it was before the call, from its checkpoint', async () => {
    const before = 'one\ntwo\nthree\n';
    const call = { id: 'w2', name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'one\ntwo\nthree\nfour\n' }) };
    const fileDiff = vi.fn(async (_seq: number, path: string): Promise<FileDiff> => ({ path, change: 'modified', before, after: 'one\ntwo\nthree\nfour\nfive\n', note: '' }));
    const changes: Change[] = [{ seq: 5, path: 'notes.txt', change: 'modified', size: 19, sha256: 'x', by: 'agent' }];
    render(
      <CheckpointContext.Provider value={{ sessionID: 's1', changes: { 5: changes }, serverOf: () => undefined, fileDiff, restore: () => {}, forkWithFiles: () => {} }}>
        <ToolCard call={call} result={{ seq: 5, payload: { call_id: 'w2', name: 'write_file', content: 'wrote notes.txt', is_error: false } }} actions={actions()} />
      </CheckpointContext.Provider>,
    );
    const diff = await screen.findByRole('figure', { name: 'Change to notes.txt' });
    await waitFor(() => expect(within(diff).queryByText('+ one')).toBeNull());
    expect(within(diff).getByText('+ four')).toBeTruthy();
    expect(within(diff).queryByText('+ five')).toBeNull();
    expect(fileDiff).toHaveBeenCalledWith(5, 'notes.txt');
  });
});
