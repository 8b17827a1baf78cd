// A dialog keeps the focus inside while open (Tab and Shift+Tab wrap) and gives it back to
// where it was when it closes.
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { useFocusFallback, useModalFocus } from './useModalFocus';

function Dialog({ onClose }: { onClose: () => void }) {
  const ref = useModalFocus<HTMLDivElement>();
  return (
    <div ref={ref} role="dialog" aria-label="Test dialog">
      <input aria-label="Name" />
      <button type="button" disabled>
        Nothing
      </button>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

function Page() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      <button type="button">After</button>
      {open && <Dialog onClose={() => setOpen(false)} />}
    </>
  );
}

describe('useModalFocus', () => {
  it('takes the focus in, keeps Tab inside, and returns it on close', async () => {
    render(<Page />);
    const opener = screen.getByRole('button', { name: 'Open' });
    opener.focus();
    await userEvent.keyboard('{Enter}');
    const name = screen.getByRole('textbox', { name: 'Name' });
    expect(document.activeElement).toBe(name);
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    await userEvent.tab();
    expect(document.activeElement).toBe(name);
    await userEvent.tab({ shift: true });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    await userEvent.keyboard('{Enter}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });
});

function Card() {
  const ref = useFocusFallback<HTMLElement>();
  const [open, setOpen] = useState(true);
  return (
    <section ref={ref} tabIndex={0} aria-label="Card">
      {open ? (
        <button type="button" onClick={() => setOpen(false)}>
          Answer
        </button>
      ) : (
        <p>Answered</p>
      )}
    </section>
  );
}

describe('useFocusFallback', () => {
  it('gives the focus to the card when the control that had it goes away', async () => {
    render(<Card />);
    screen.getByRole('button', { name: 'Answer' }).focus();
    await userEvent.keyboard('{Enter}');
    await screen.findByText('Answered');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('region', { name: 'Card' })));
  });
});
