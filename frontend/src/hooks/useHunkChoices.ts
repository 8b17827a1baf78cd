import { useCallback, useMemo, useState } from 'react';
import type { HunkChoice, ProposedHunk } from '../api/types';

/**
 * The person's choice for each proposed hunk of a call under review, every hunk kept until
 * they choose otherwise. The card's one Approve (its button, `y`, Always allow) sends these
 * choices, so what is written is what the review shows.
 */
export function useHunkChoices(hunks: ProposedHunk[] | undefined) {
  const [chosen, setChosen] = useState<Record<number, HunkChoice>>({});
  const choices = useMemo(() => (hunks ?? []).map((h): HunkChoice => chosen[h.hunk] ?? { hunk: h.hunk, action: 'keep' }), [hunks, chosen]);
  const choose = useCallback((c: HunkChoice) => setChosen((cs) => ({ ...cs, [c.hunk]: c })), []);
  const kept = choices.filter((c) => c.action !== 'drop').length;
  return { choices, choose, kept };
}
