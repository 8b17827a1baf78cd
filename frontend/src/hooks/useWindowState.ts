import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../api/backend';
import type { UIState } from '../api/types';

export const DEFAULT_PANEL_WIDTH = 440;
export const MIN_PANEL_WIDTH = 280;
export const MAX_PANEL_WIDTH = 900;
export const ZOOM_STEPS = [0.5, 0.67, 0.75, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2];
/** Saves wait this long after the last change (a drag, a burst of zoom keys, a resize). */
export const SAVE_DELAY_MS = 400;

export const clampPanel = (w: number) => Math.round(Math.max(MIN_PANEL_WIDTH, Math.min(MAX_PANEL_WIDTH, w)));

/** The next zoom step up (dir 1) or down (dir -1) from z. */
export function stepZoom(z: number, dir: 1 | -1): number {
  if (dir > 0) return ZOOM_STEPS.find((s) => s > z + 0.001) ?? ZOOM_STEPS[ZOOM_STEPS.length - 1];
  return [...ZOOM_STEPS].reverse().find((s) => s < z - 0.001) ?? ZOOM_STEPS[0];
}

/** Calls fn once, delay ms after the last call; a pending call runs on unmount. */
function useDebounced<A extends unknown[]>(fn: (...a: A) => void, delay: number) {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const pending = useRef<(() => void) | null>(null);
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
      pending.current?.();
    },
    [],
  );
  return useCallback(
    (...a: A) => {
      if (timer.current) clearTimeout(timer.current);
      pending.current = () => {
        pending.current = null;
        latest.current(...a);
      };
      timer.current = setTimeout(() => pending.current?.(), delay);
    },
    [delay],
  );
}

/**
 * What the window remembers between starts on the page's side: the side panel's width, the
 * open session and the zoom, read once from Go (Window.UIState) and saved, debounced, on every
 * change. The window's own size and position are Go's: the page only says when it was
 * resized (Window.SaveGeometry, debounced), and Go saves them again before it closes.
 *
 * loaded is null until Go answered; then it is what was saved (last_session: the session to
 * reopen).
 */
export function useWindowState(selected: string | null) {
  const [loaded, setLoaded] = useState<UIState | null>(null);
  const [panelWidth, setPanelWidth] = useState(DEFAULT_PANEL_WIDTH);
  const [zoom, setZoom] = useState(1);

  useEffect(() => {
    let live = true;
    api.uiState().then(
      (s) => {
        if (!live) return;
        if (s.panel_width) setPanelWidth(clampPanel(s.panel_width));
        if (s.zoom) setZoom(s.zoom);
        setLoaded(s);
      },
      () => live && setLoaded({ panel_width: 0, last_session: '', zoom: 1 }),
    );
    return () => {
      live = false;
    };
  }, []);

  const save = useDebounced((s: UIState) => void api.saveUIState(s).catch(() => {}), SAVE_DELAY_MS);
  // Nothing is saved before the saved state was read: it would overwrite it with defaults.
  useEffect(() => {
    if (loaded) save({ panel_width: panelWidth === DEFAULT_PANEL_WIDTH ? 0 : panelWidth, last_session: selected ?? '', zoom });
  }, [loaded, panelWidth, selected, zoom, save]);

  // The page's zoom: CSS zoom on the root, the layout's height divided by it (style.css).
  useEffect(() => {
    const root = document.documentElement;
    root.style.setProperty('zoom', String(zoom));
    root.style.setProperty('--zoom', String(zoom));
  }, [zoom]);

  const saveGeometry = useDebounced(() => void api.saveGeometry().catch(() => {}), SAVE_DELAY_MS);
  useEffect(() => {
    window.addEventListener('resize', saveGeometry);
    return () => window.removeEventListener('resize', saveGeometry);
  }, [saveGeometry]);

  const zoomBy = useCallback((dir: 1 | -1 | 0) => setZoom((z) => (dir === 0 ? 1 : stepZoom(z, dir))), []);
  const resizePanel = useCallback((w: number) => setPanelWidth(clampPanel(w)), []);
  return { loaded, panelWidth, resizePanel, zoom, zoomBy };
}
