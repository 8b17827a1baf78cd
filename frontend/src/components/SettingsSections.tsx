import { useCallback, useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import type { ContextWindow, Price } from '../api/types';

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
  { id: 'agents', title: 'Agents', own: 'its own buttons' },
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

const num = (s: string) => {
  const n = Number(s);
  return Number.isFinite(n) && n >= 0 ? n : 0;
};

function replace<T>(list: T[], i: number, v: T): T[] {
  return list.map((x, j) => (j === i ? v : x));
}

/** The price table: US dollars per million tokens, per model. */
export function PricesTable({ prices, model, onChange }: { prices: Price[]; model: string; onChange: (p: Price[]) => void }) {
  const cell = (p: Price, i: number, key: keyof Price, label: string) => (
    <td>
      <input aria-label={`${label} ${i + 1}`} type="number" min="0" step="0.01" value={(p[key] as number | undefined) ?? 0} onChange={(e) => onChange(replace(prices, i, { ...p, [key]: num(e.target.value) }))} />
    </td>
  );
  return (
    <>
      <h2>Prices</h2>
      <p className="note">US dollars per million tokens. Models not listed (local ones) cost nothing. Cache reads and writes at 0 are priced as input.</p>
      <table className="grid" aria-label="Prices">
        <thead>
          <tr>
            <th>Model</th>
            <th>Input</th>
            <th>Output</th>
            <th>Cache read</th>
            <th>Cache write</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {prices.map((p, i) => (
            <tr key={i}>
              <td>
                <input aria-label={`Price model ${i + 1}`} value={p.model} onChange={(e) => onChange(replace(prices, i, { ...p, model: e.target.value }))} />
              </td>
              {cell(p, i, 'input_per_mtok', 'Input price')}
              {cell(p, i, 'output_per_mtok', 'Output price')}
              {cell(p, i, 'cache_read_per_mtok', 'Cache read price')}
              {cell(p, i, 'cache_write_per_mtok', 'Cache write price')}
              <td>
                <button type="button" className="small" aria-label={`Remove price ${i + 1}`} onClick={() => onChange(prices.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" onClick={() => onChange([...prices, { model: model || '', input_per_mtok: 0, output_per_mtok: 0, cache_read_per_mtok: 0, cache_write_per_mtok: 0 }])}>
          Add price
        </button>
      </div>
    </>
  );
}

/** Context window sizes per model. */
export function WindowsTable({ windows, model, onChange }: { windows: ContextWindow[]; model: string; onChange: (w: ContextWindow[]) => void }) {
  return (
    <>
      <h2>Context windows</h2>
      <table className="grid" aria-label="Context windows">
        <thead>
          <tr>
            <th>Model</th>
            <th>Tokens</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {windows.map((w, i) => (
            <tr key={i}>
              <td>
                <input aria-label={`Context model ${i + 1}`} value={w.model} onChange={(e) => onChange(replace(windows, i, { ...w, model: e.target.value }))} />
              </td>
              <td>
                <input aria-label={`Context tokens ${i + 1}`} type="number" min="0" step="1024" value={w.tokens} onChange={(e) => onChange(replace(windows, i, { ...w, tokens: num(e.target.value) }))} />
              </td>
              <td>
                <button type="button" className="small" aria-label={`Remove context window ${i + 1}`} onClick={() => onChange(windows.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" onClick={() => onChange([...windows, { model: model || '', tokens: 128000 }])}>
          Add context window
        </button>
      </div>
    </>
  );
}
