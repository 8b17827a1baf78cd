import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../api/backend';
import type { ChunkKind, Row } from '../api/types';

/** Rows per page the chunk table reads. */
export const TABLE_PAGE = 100;
/** Pages the chunk table keeps (the least recently used go first). */
const KEEP_PAGES = 30;

interface Args {
  sessionID: string | null;
  /** The rows the conversation holds: fresh, and never read twice. */
  held: Row[];
  /** The session's first seq and the highest seq it is known to have. */
  firstSeq: number;
  lastSeq: number;
  /** Only rows of this kind ('' for all). */
  kind: ChunkKind | '';
}

interface Page {
  rows: Map<number, Row>;
  /** The session's last seq when it was read: a page short of it is read again when more come. */
  tail: number;
}

/**
 * The rows of the chunk table, a page at a time: the table asks for the rows it shows
 * (want), and rowAt gives a row from the conversation's window or a page read with
 * RowsBefore; at most KEEP_PAGES pages are kept. Without a kind filter row i is seq
 * firstSeq+i (seqs are contiguous); with one, Go lists the seqs of that kind.
 */
export function useSessionChunks({ sessionID, held, firstSeq, lastSeq, kind }: Args) {
  const pages = useRef(new Map<number, Page>());
  const asked = useRef(new Set<number>());
  const [version, setVersion] = useState(0);
  const seqs = useKindSeqs(sessionID, kind, lastSeq);
  const heldBySeq = useMemo(() => new Map(held.map((r) => [r.seq, r])), [held]);

  useEffect(() => {
    pages.current.clear();
    asked.current.clear();
  }, [sessionID]);

  const pageOf = useCallback((seq: number) => Math.floor((seq - firstSeq) / TABLE_PAGE), [firstSeq]);

  const rowAt = useCallback(
    (seq: number): Row | undefined => heldBySeq.get(seq) ?? pages.current.get(pageOf(seq))?.rows.get(seq),
    // version: a page came in.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [heldBySeq, pageOf, version],
  );

  /** Reads the pages of the seqs from..to (inclusive) that are neither held nor read yet. */
  const want = useCallback(
    (from: number, to: number) => {
      if (!sessionID || to < from) return;
      for (let p = pageOf(from); p <= pageOf(to); p++) {
        const start = firstSeq + p * TABLE_PAGE;
        const page = pages.current.get(p);
        const end = Math.min(start + TABLE_PAGE - 1, lastSeq);
        const complete = page && (page.tail >= lastSeq || page.rows.has(end));
        if (complete || asked.current.has(p) || (heldBySeq.has(start) && heldBySeq.has(end))) continue;
        asked.current.add(p);
        const id = sessionID;
        api.rowsBefore(id, start + TABLE_PAGE, TABLE_PAGE).then(
          (rows) => {
            asked.current.delete(p);
            if (id !== sessionID) return;
            keep(pages.current, p, { rows: new Map(rows.filter((r) => r.seq >= start).map((r) => [r.seq, r])), tail: lastSeq });
            setVersion((v) => v + 1);
          },
          () => asked.current.delete(p),
        );
      }
    },
    [sessionID, firstSeq, lastSeq, pageOf, heldBySeq],
  );

  const count = seqs ? seqs.length : kind === '' && firstSeq > 0 && lastSeq >= firstSeq ? lastSeq - firstSeq + 1 : 0;
  const seqAt = useCallback((i: number) => (seqs ? seqs[i] : firstSeq + i), [seqs, firstSeq]);
  const indexOf = useCallback((seq: number) => (seqs ? seqs.indexOf(seq) : seq >= firstSeq && seq <= lastSeq ? seq - firstSeq : -1), [seqs, firstSeq, lastSeq]);
  return { count, seqAt, indexOf, rowAt, want, loadingKind: kind !== '' && seqs === null };
}

/** Keeps page p, dropping the least recently added past KEEP_PAGES. */
function keep(pages: Map<number, Page>, p: number, page: Page) {
  pages.delete(p);
  pages.set(p, page);
  while (pages.size > KEEP_PAGES) pages.delete(pages.keys().next().value as number);
}

/** The seqs of the session's rows of kind (null while they are read, or with no kind). */
function useKindSeqs(sessionID: string | null, kind: ChunkKind | '', lastSeq: number): number[] | null {
  const [seqs, setSeqs] = useState<number[] | null>(null);
  useEffect(() => {
    if (!sessionID || !kind) {
      setSeqs(null);
      return;
    }
    let live = true;
    api.rowSeqs(sessionID, kind).then((s) => live && setSeqs(s), () => live && setSeqs([]));
    return () => {
      live = false;
    };
  }, [sessionID, kind, lastSeq]);
  return seqs;
}
