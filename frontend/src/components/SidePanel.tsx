import type { KeyboardEvent, ReactNode } from 'react';

export type Tab = 'budget' | 'chunks' | 'workspace' | 'changes' | 'memory';

const TABS: { id: Tab; label: string }[] = [
  { id: 'budget', label: 'Budget' },
  { id: 'chunks', label: 'Chunks' },
  { id: 'workspace', label: 'Workspace' },
  { id: 'changes', label: 'Changes' },
  { id: 'memory', label: 'Memory' },
];

interface Props {
  tab: Tab;
  onTab: (t: Tab) => void;
  /** A narrow window: only the tabs show, and a tab opens the panel over the conversation. */
  collapsed?: boolean;
  /** With collapsed: the panel is open. */
  open?: boolean;
  onClose?: () => void;
  /** Drawn on the panel's left edge while it is not folded (the width handle). */
  edge?: ReactNode;
  children: ReactNode;
}

/** The tab a key moves to from tab, or null when the key is not the tabs'. */
export function tabAfter(tab: Tab, key: string, vertical: boolean): Tab | null {
  const i = TABS.findIndex((t) => t.id === tab);
  const [next, prev] = vertical ? ['ArrowDown', 'ArrowUp'] : ['ArrowRight', 'ArrowLeft'];
  if (key === next) return TABS[(i + 1) % TABS.length].id;
  if (key === prev) return TABS[(i + TABS.length - 1) % TABS.length].id;
  if (key === 'Home') return TABS[0].id;
  if (key === 'End') return TABS[TABS.length - 1].id;
  return null;
}

/**
 * The side panel: tabs for the budget meters, the chunk table and the workspace. In a narrow
 * window it folds to a strip of its tabs; a tab opens it as a drawer, Escape or Close folds it.
 */
export function SidePanel({ tab, onTab, collapsed = false, open = true, onClose, edge, children }: Props) {
  // The ARIA tabs pattern: arrows (Home, End) select the next tab and the focus moves with it.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const to = tabAfter(tab, e.key, collapsed);
    if (!to) return;
    e.preventDefault();
    onTab(to);
    document.getElementById(`tab-${to}`)?.focus();
  };
  const shown = !collapsed || open;
  return (
    <aside
      className={`side${collapsed ? ' collapsed' : ''}${collapsed && open ? ' open' : ''}`}
      aria-label="Side panel"
      onKeyDown={(e) => collapsed && open && e.key === 'Escape' && onClose?.()}
    >
      {!collapsed && edge}
      <div role="tablist" aria-label="Side panel tabs" aria-orientation={collapsed ? 'vertical' : 'horizontal'} className="tabs" onKeyDown={onKeyDown}>
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id && shown}
            aria-controls={shown ? `panel-${t.id}` : undefined}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => onTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      {shown && (
        <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tabpanel">
          {collapsed && (
            <button type="button" className="small close-side" onClick={onClose}>
              Close
              <span className="sr-only"> side panel</span>
            </button>
          )}
          {children}
        </div>
      )}
    </aside>
  );
}
