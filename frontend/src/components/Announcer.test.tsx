// The announcer: the streaming reply reaches a screen reader once per sentence (never per
// token), and a new approval assertively with its session, tool and command, without the focus.
import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { InboxApproval } from '../api/types';
import { createStore } from '../lib/store';
import { appendDelta, type Segment } from '../state/stream';
import { Announcer } from './Announcer';

/** Every text the polite region held, in order (a live region reads each change). */
function recordPolite() {
  const said: string[] = [];
  const region = screen.getByTestId('announce-polite');
  const obs = new MutationObserver(() => {
    const t = region.textContent ?? '';
    if (t && t !== said.at(-1)) said.push(t);
  });
  obs.observe(region, { childList: true, characterData: true, subtree: true });
  return { said, stop: () => obs.disconnect() };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

function approval(over: Partial<InboxApproval>): InboxApproval {
  return { kind: 'approval', session_id: 's1', session_title: 'Fix the build', parent_session_id: null, run_id: 'r1', call_id: 'c1', tool: 'run_shell_command', arguments: { command: 'rm -rf build' }, waiting_ms: 0, workspace: '/w', provider: '', model: '', child_description: '', child_agent: '', diff: '', review: false, note: '', read_only: false, sandboxed: false, requested_at: '', origin: { kind: 'window', pid: 0, client: '' }, ...over };
}

describe('Announcer', () => {
  it('says each sentence of the streaming reply once, token by token, and the rest when the reply is stored', async () => {
    const stream = createStore<Segment[]>([]);
    render(<Announcer stream={stream} run="r1" from={0} approvals={[]} />);
    const rec = recordPolite();
    const reply = 'I looked at the **folder**. It holds two files! The first is a.txt and';
    let segs: Segment[] = [];
    for (const token of reply.match(/\S+\s*/g)!) {
      segs = appendDelta(segs, { type: 'text_delta', run_id: 'r1', seq: 3, text: token });
      act(() => stream.set(segs));
      await flush();
    }
    expect(rec.said).toEqual(['I looked at the folder.', 'It holds two files!']);
    // The reply's row is stored: the streamed preview goes, and its unfinished sentence is said.
    act(() => stream.set([]));
    await flush();
    expect(rec.said).toEqual(['I looked at the folder.', 'It holds two files!', 'The first is a.txt and']);
    rec.stop();
  });

  it('announces a new approval assertively, once, with the session, tool and command, and keeps the focus', async () => {
    const stream = createStore<Segment[]>([]);
    const { rerender } = render(
      <>
        <textarea aria-label="Message" />
        <Announcer stream={stream} run="" from={0} approvals={[]} />
      </>,
    );
    const box = screen.getByRole('textbox', { name: 'Message' });
    box.focus();
    const first = approval({});
    rerender(
      <>
        <textarea aria-label="Message" />
        <Announcer stream={stream} run="" from={0} approvals={[first]} />
      </>,
    );
    const urgent = screen.getByTestId('announce-assertive');
    expect(urgent.getAttribute('aria-live')).toBe('assertive');
    expect(urgent.textContent).toBe('Approval needed in Fix the build: run_shell_command — rm -rf build');
    expect(document.activeElement).toBe(box);
    // The same call listed again is not announced again; a new one is.
    const second = approval({ call_id: 'c2', tool: 'write_file', arguments: { path: 'notes.md', content: 'x' } });
    rerender(
      <>
        <textarea aria-label="Message" />
        <Announcer stream={stream} run="" from={0} approvals={[first, second]} />
      </>,
    );
    expect(urgent.textContent).toBe('Approval needed in Fix the build: write_file — notes.md');
  });
});
