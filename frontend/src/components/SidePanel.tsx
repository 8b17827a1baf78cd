import type { KeyboardEvent, ReactNode } from 'react';

export type Tab = 'budget' | 'chunks' | 'workspace';

const TABS: { id: Tab; label: string }[] = [
  { id: 'budget', label: 'Budget' },
  { id: 'chunks', label: 'Chunks' },
  { id: 'workspace', label: 'Workspace' },
];

/** The side panel: tabs for the budget meters, the chunk table and the workspace. */
export function SidePanel({ tab, onTab, children }: { tab: Tab; onTab: (t: Tab) => void; children: ReactNode }) {
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const i = TABS.findIndex((t) => t.id === tab);
    if (e.key === 'ArrowRight') onTab(TABS[(i + 1) % TABS.length].id);
    else if (e.key === 'ArrowLeft') onTab(TABS[(i + TABS.length - 1) % TABS.length].id);
  };
  return (
    <aside className="side" aria-label="Side panel">
      <div role="tablist" aria-label="Side panel tabs" className="tabs" onKeyDown={onKeyDown}>
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => onTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tabpanel">
        {children}
      </div>
    </aside>
  );
}
