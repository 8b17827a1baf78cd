// The side panel's tabs follow the ARIA tabs pattern: one tab in the Tab order, arrows (Home,
// End) select the next tab and the focus moves with the selection.
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { SidePanel, tabAfter, type Tab } from './SidePanel';

function Panel({ collapsed = false }: { collapsed?: boolean }) {
  const [tab, setTab] = useState<Tab>('budget');
  return (
    <>
      <button type="button">Before</button>
      <SidePanel tab={tab} onTab={setTab} collapsed={collapsed} open>
        <p>{tab} content</p>
      </SidePanel>
    </>
  );
}

describe('SidePanel tabs', () => {
  it('arrows move the selection and the focus together, wrapping; Home and End go to the ends', async () => {
    render(<Panel />);
    await userEvent.click(screen.getByRole('button', { name: 'Before' }));
    await userEvent.tab();
    const budget = screen.getByRole('tab', { name: 'Budget' });
    expect(document.activeElement).toBe(budget);
    await userEvent.keyboard('{ArrowRight}');
    const chunks = screen.getByRole('tab', { name: 'Chunks' });
    expect(document.activeElement).toBe(chunks);
    expect(chunks.getAttribute('aria-selected')).toBe('true');
    expect(budget.getAttribute('aria-selected')).toBe('false');
    expect(screen.getByRole('tabpanel', { name: 'Chunks' }).textContent).toContain('chunks content');
    await userEvent.keyboard('{End}');
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'Memory' }));
    await userEvent.keyboard('{ArrowRight}');
    expect(document.activeElement).toBe(budget);
    await userEvent.keyboard('{ArrowLeft}');
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'Memory' }));
    await userEvent.keyboard('{Home}');
    expect(document.activeElement).toBe(budget);
    // Only the selected tab is in the Tab order: Tab leaves the tab list for the panel.
    expect(screen.getAllByRole('tab').map((t) => t.tabIndex)).toEqual([0, -1, -1, -1, -1]);
  });

  it('folded to a strip, the up and down arrows move instead', () => {
    expect(tabAfter('budget', 'ArrowDown', true)).toBe('chunks');
    expect(tabAfter('budget', 'ArrowRight', true)).toBeNull();
    expect(tabAfter('budget', 'ArrowUp', true)).toBe('memory');
    expect(tabAfter('workspace', 'x', false)).toBeNull();
  });
});
