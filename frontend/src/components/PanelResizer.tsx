import type { KeyboardEvent, PointerEvent } from 'react';
import { useRef } from 'react';
import { MAX_PANEL_WIDTH, MIN_PANEL_WIDTH } from '../hooks/useWindowState';

interface Props {
  width: number;
  onResize: (width: number) => void;
  /** The page zoom: pointer moves are in screen pixels, the width in CSS pixels. */
  zoom?: number;
}

/**
 * The side panel's left edge: drag it, or focus it and press the arrow keys (Home/End for the
 * narrowest/widest), to change the panel's width.
 */
export function PanelResizer({ width, onResize, zoom = 1 }: Props) {
  const drag = useRef<{ x: number; w: number } | null>(null);
  const onKeyDown = (e: KeyboardEvent) => {
    const step = e.shiftKey ? 80 : 20;
    const next = { ArrowLeft: width + step, ArrowRight: width - step, Home: MIN_PANEL_WIDTH, End: MAX_PANEL_WIDTH }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    onResize(next);
  };
  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize side panel"
      aria-valuenow={width}
      aria-valuemin={MIN_PANEL_WIDTH}
      aria-valuemax={MAX_PANEL_WIDTH}
      tabIndex={0}
      className="panel-resizer"
      onKeyDown={onKeyDown}
      onPointerDown={(e: PointerEvent) => {
        drag.current = { x: e.clientX, w: width };
        (e.target as Element).setPointerCapture?.(e.pointerId);
      }}
      onPointerMove={(e: PointerEvent) => {
        if (drag.current) onResize(drag.current.w + (drag.current.x - e.clientX) / zoom);
      }}
      onPointerUp={() => {
        drag.current = null;
      }}
    />
  );
}
