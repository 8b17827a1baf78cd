// Images a provider refused. The journal is append-only, so the user row that
// carries an image is never changed: an image_excluded row names the images left out of the
// context from then on, with the provider's words. The conversation shows the note on each
// image and the row itself names them.

import type { ImageRef, Row } from '../api/types';

export interface Exclusions {
  /** Per user row seq: the reason for each of its images left out, by hash. */
  bySeq: Map<number, Record<string, string>>;
  /** Per image_excluded row seq: the names of the images it leaves out. */
  names: Map<number, string[]>;
}

/** Reads the image_excluded rows of a session's rows. */
export function exclusionsOf(rows: Row[]): Exclusions {
  const bySeq = new Map<number, Record<string, string>>();
  const names = new Map<number, string[]>();
  let users: Map<number, ImageRef[]> | null = null;
  for (const r of rows) {
    if (r.kind !== 'image_excluded') continue;
    users ??= new Map(rows.flatMap((u) => (u.kind === 'user' ? [[u.seq, u.payload.images ?? []] as const] : [])));
    const p = r.payload;
    const list: string[] = [];
    for (const im of p.images ?? []) {
      bySeq.set(im.seq, { ...bySeq.get(im.seq), [im.hash]: p.reason });
      const ref = users.get(im.seq)?.find((x) => x.hash === im.hash);
      list.push(ref?.name || `an image of message #${im.seq}`);
    }
    names.set(r.seq, list);
  }
  return { bySeq, names };
}
