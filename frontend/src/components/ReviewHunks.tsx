import type { HunkAction, HunkChoice, ProposedHunk } from '../api/types';
import { PatchView } from './ChangesPanel';

const HUNK_ACTIONS: readonly HunkAction[] = ['keep', 'drop', 'edit'];

/**
 * Approval mode review: the hunks a write_file or edit_file call would write, each kept,
 * dropped or edited before anything is written; Go writes only that and tells the model.
 * The card holds the choices and approves with them (there is one Approve).
 */
export function ReviewHunks({ hunks, choices, onChoose }: { hunks: ProposedHunk[]; choices: HunkChoice[]; onChoose: (c: HunkChoice) => void }) {
  return (
    <div className="review-hunks" role="group" aria-label="Review hunks">
      <ul className="hunks">
        {hunks.map((h, i) => {
          const c = choices[i] ?? { hunk: h.hunk, action: 'keep' };
          const name = `Hunk ${h.hunk}`;
          return (
            <li key={h.hunk} className={`hunk ${c.action === 'drop' ? 'reverted' : ''}`} aria-label={name}>
              <div className="row" role="radiogroup" aria-label={`${name}: keep, drop or edit`}>
                <strong>
                  {name} · lines {h.new_start}–{h.new_start + Math.max(h.new_lines, 1) - 1}
                </strong>
                {HUNK_ACTIONS.map((a) => (
                  <label key={a} className="small">
                    <input
                      type="radio"
                      name={`hunk-${h.hunk}`}
                      aria-label={`${a[0].toUpperCase()}${a.slice(1)} hunk ${h.hunk}`}
                      checked={c.action === a}
                      onChange={() => onChoose({ hunk: h.hunk, action: a, text: a === 'edit' ? (c.text ?? h.new) : undefined })}
                    />{' '}
                    {a}
                  </label>
                ))}
              </div>
              {c.action === 'edit' ? (
                <textarea
                  aria-label={`Text of hunk ${h.hunk}`}
                  value={c.text ?? h.new}
                  rows={Math.min(16, (c.text ?? h.new).split('\n').length + 1)}
                  spellCheck={false}
                  onChange={(e) => onChoose({ ...c, text: e.target.value })}
                />
              ) : (
                <PatchView patch={h.patch} />
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
