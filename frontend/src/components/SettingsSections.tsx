import { useCallback, useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import type { ContextWindow, Price } from '../api/types';
import { EditableTable, NumberCell, type Column } from './EditableTable';

/**
 * Settings' sections, in the order they stand. `own` names the button of a section that saves
 * itself; the others are saved together by the panel's one Save.
 */
export const SECTIONS: { id: string; title: string; own?: string }[] = [
  { id: 'endpoint', title: 'Endpoint' },
  { id: 'approvals', title: 'Approvals' },
  { id: 'budgets', title: 'Budgets' },
  { id: 'prices', title: 'Prices' },
  { id: 'context', title: 'Context windows' },
  { id: 'vision', title: 'Images' },
  { id: 'appearance', title: 'Appearance' },
  { id: 'providers', title: 'Providers', own: 'Save providers' },
  { id: 'mcp', title: 'MCP servers', own: 'Save MCP servers' },
  { id: 'hooks', title: 'Hooks', own: 'its own buttons' },
  { id: 'skills', title: 'Skills', own: 'its own buttons' },
  { id: 'memory', title: 'Memory', own: 'its own buttons' },
  { id: 'agents', title: 'Agents', own: 'its own buttons' },
  { id: 'telemetry', title: 'Telemetry', own: 'Save telemetry' },
  { id: 'storage', title: 'Storage', own: 'its own button' },
  { id: 'backups', title: 'Backups', own: 'its own buttons' },
];

/** What the panel's Save writes: every section that does not save itself. */
export const SAVED_BY_SAVE = SECTIONS.filter((s) => !s.own).map((s) => s.title);

const sectionID = (id: string) => `settings-${id}`;

/** One section of the scrolling area; one that saves itself says so first. */
export function SettingsSection({ id, children }: { id: string; children: ReactNode }) {
  const own = SECTIONS.find((s) => s.id === id)?.own;
  return (
    <div className="settings-section" id={sectionID(id)} data-section={id}>
      {own && <p className="note saves-itself">This section saves itself, with {own}; Save below does not write it.</p>}
      {children}
    </div>
  );
}

/**
 * The section list beside the scrolling area: a click brings the section to the top of the
 * area; scrolling marks the section at the top as the current one.
 */
export function SettingsNav({ body }: { body: RefObject<HTMLElement | null> }) {
  const [current, setCurrent] = useState(SECTIONS[0].id);
  const jumping = useRef(false);
  const spy = useCallback(() => {
    const el = body.current;
    if (!el || jumping.current) return;
    const top = el.getBoundingClientRect().top;
    let at = SECTIONS[0].id;
    for (const s of el.querySelectorAll<HTMLElement>('.settings-section')) {
      if (s.getBoundingClientRect().top - top <= 24) at = s.dataset.section ?? at;
    }
    setCurrent(at);
  }, [body]);
  useEffect(() => {
    const el = body.current;
    el?.addEventListener('scroll', spy, { passive: true });
    return () => el?.removeEventListener('scroll', spy);
  }, [body, spy]);
  const go = (id: string) => {
    setCurrent(id);
    // The spy would mark each section scrolled past on the way; the choice stands until the person scrolls.
    jumping.current = true;
    document.getElementById(sectionID(id))?.scrollIntoView?.({ block: 'start' });
    setTimeout(() => (jumping.current = false), 400);
  };
  return (
    <nav className="settings-nav" aria-label="Settings sections">
      <ul>
        {SECTIONS.map((s) => (
          <li key={s.id}>
            <button type="button" aria-current={current === s.id ? 'true' : undefined} onClick={() => go(s.id)}>
              {s.title}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

const priceCell = (key: Exclude<keyof Price, 'model'>, header: string, label: string): Column<Price> => ({
  header,
  cell: (p, set, i) => <NumberCell label={`${label} ${i + 1}`} step="0.01" value={p[key] ?? 0} onChange={(n) => set({ ...p, [key]: n })} />,
});

const PRICE_COLUMNS: Column<Price>[] = [
  { header: 'Model', cell: (p, set, i) => <input aria-label={`Price model ${i + 1}`} value={p.model} onChange={(e) => set({ ...p, model: e.target.value })} /> },
  priceCell('input_per_mtok', 'Input', 'Input price'),
  priceCell('output_per_mtok', 'Output', 'Output price'),
  priceCell('cache_read_per_mtok', 'Cache read', 'Cache read price'),
  priceCell('cache_write_per_mtok', 'Cache write', 'Cache write price'),
];

/** The price table: US dollars per million tokens, per model. */
export function PricesTable({ prices, model, onChange }: { prices: Price[]; model: string; onChange: (p: Price[]) => void }) {
  return (
    <>
      <h2>Prices</h2>
      <p className="note">US dollars per million tokens. Models not listed (local ones) cost nothing. Cache reads and writes at 0 are priced as input.</p>
      <EditableTable
        label="Prices"
        columns={PRICE_COLUMNS}
        rows={prices}
        onChange={onChange}
        newRow={() => ({ model: model || '', input_per_mtok: 0, output_per_mtok: 0, cache_read_per_mtok: 0, cache_write_per_mtok: 0 })}
        addLabel="Add price"
        removeLabel={(i) => `Remove price ${i + 1}`}
      />
    </>
  );
}

const WINDOW_COLUMNS: Column<ContextWindow>[] = [
  { header: 'Model', cell: (w, set, i) => <input aria-label={`Context model ${i + 1}`} value={w.model} onChange={(e) => set({ ...w, model: e.target.value })} /> },
  { header: 'Tokens', cell: (w, set, i) => <NumberCell label={`Context tokens ${i + 1}`} step="1024" value={w.tokens} onChange={(tokens) => set({ ...w, tokens })} /> },
];

/** Context window sizes per model. */
export function WindowsTable({ windows, model, onChange }: { windows: ContextWindow[]; model: string; onChange: (w: ContextWindow[]) => void }) {
  return (
    <>
      <h2>Context windows</h2>
      <EditableTable
        label="Context windows"
        columns={WINDOW_COLUMNS}
        rows={windows}
        onChange={onChange}
        newRow={() => ({ model: model || '', tokens: 128000 })}
        addLabel="Add context window"
        removeLabel={(i) => `Remove context window ${i + 1}`}
      />
    </>
  );
}
