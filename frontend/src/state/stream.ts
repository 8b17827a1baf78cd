// The reply streaming in, as segments of delta text tagged with their run and seq (a delta
// carries the seq of the last must-deliver event before it). The reducer's streamFrom says
// which seq the stored rows end at: the preview is the live run's text from there on, so the
// stored part of a reply and its preview never show twice, whatever order they arrived in.
// Pure functions; the hook keeps the segments and publishes them once per animation frame.

export interface Segment {
  run: string;
  seq: number;
  text: string;
  reasoning: string;
}

export interface Delta {
  type: 'text_delta' | 'reasoning_delta';
  run_id: string;
  seq: number;
  text: string;
}

export interface Streamed {
  text: string;
  reasoning: string;
}

export const NOTHING_STREAMED: Streamed = { text: '', reasoning: '' };

/** Adds a delta, merging it into the last segment when it has the same run and seq. */
export function appendDelta(segs: Segment[], d: Delta): Segment[] {
  const last = segs.at(-1);
  const reasoning = d.type === 'reasoning_delta';
  if (last && last.run === d.run_id && last.seq === d.seq) {
    const merged = reasoning ? { ...last, reasoning: last.reasoning + d.text } : { ...last, text: last.text + d.text };
    return [...segs.slice(0, -1), merged];
  }
  return [...segs, { run: d.run_id, seq: d.seq, text: reasoning ? '' : d.text, reasoning: reasoning ? d.text : '' }];
}

/** The live run's text that is not stored yet. */
export function visible(segs: Segment[], run: string, from: number): Streamed {
  let text = '';
  let reasoning = '';
  for (const s of segs) {
    if (s.run !== run || s.seq < from) continue;
    text += s.text;
    reasoning += s.reasoning;
  }
  return text || reasoning ? { text, reasoning } : NOTHING_STREAMED;
}

/**
 * Drops what can no longer show: the stored text of the live run and, while a run is live,
 * any other run's text. With no run live everything is kept: a delta may have overtaken its
 * run_started (dev server), and text of a finished run never shows anyway.
 */
export function prune(segs: Segment[], run: string, from: number): Segment[] {
  if (!run) return segs;
  const kept = segs.filter((s) => s.run === run && s.seq >= from);
  return kept.length === segs.length ? segs : kept;
}
