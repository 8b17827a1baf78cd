package checkpoint

import (
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Proposed is one hunk of a change not yet written (approval mode review), as the approval
// card shows it: the loop's own type (core.ProposedHunk), so the proposal, the event and the
// page share one shape.
type Proposed = core.ProposedHunk

// Propose splits the change from old to new into hunks (HunkContext lines
// of context), numbered from 1.
func Propose(old, new string) []Proposed {
	a, b := splitLines([]byte(old)), splitLines([]byte(new))
	ops := diffLines(a, b)
	out := []Proposed{}
	for i, s := range spans(ops, HunkContext) {
		o, n := sides(ops, s, a, b)
		out = append(out, Proposed{Hunk: i + 1, OldStart: s.oldStart, OldLines: s.oldLines, NewStart: s.newStart,
			NewLines: s.newLines, Patch: patch(ops, s, a, b), Old: strings.Join(o, ""), New: strings.Join(n, "")})
	}
	return out
}

// ApplyChoices builds the content to write from old, new and the person's
// choices (a hunk not named is kept), and the note for the model saying
// which hunks were kept, dropped or edited, with their line ranges. An
// unknown hunk number or action is an error.
func ApplyChoices(path, old, new string, choices []tools.HunkChoice) (final, note string, err error) {
	a, b := splitLines([]byte(old)), splitLines([]byte(new))
	ops := diffLines(a, b)
	ss := spans(ops, HunkContext)
	byHunk := map[int]tools.HunkChoice{}
	for _, c := range choices {
		if c.Hunk < 1 || c.Hunk > len(ss) {
			return "", "", fmt.Errorf("review of %s: no hunk %d (the change has %d)", path, c.Hunk, len(ss))
		}
		if c.Action != tools.HunkKeep && c.Action != tools.HunkDrop && c.Action != tools.HunkEdit {
			return "", "", fmt.Errorf("review of %s: hunk %d: action %q (want keep, drop or edit)", path, c.Hunk, c.Action)
		}
		byHunk[c.Hunk] = c
	}
	var out []string
	var lines []string
	at := 0 // next line of a to copy
	for i, s := range ss {
		o, n := sides(ops, s, a, b)
		out = append(out, a[at:s.oldAt]...)
		at = s.oldAt + len(o)
		c, ok := byHunk[i+1]
		if !ok {
			c.Action = tools.HunkKeep
		}
		start := len(out) + 1
		switch c.Action {
		case tools.HunkKeep:
			out = append(out, n...)
		case tools.HunkDrop:
			out = append(out, o...)
		case tools.HunkEdit:
			out = append(out, splitLines([]byte(c.Text))...)
		}
		lines = append(lines, hunkLine(i+1, s, c.Action, start, len(out)))
	}
	out = append(out, a[at:]...)
	final = strings.Join(out, "")
	note = fmt.Sprintf("[loopdesk: the person reviewed this change to %s before it was written; only what they kept was written:\n%s\nRead the file again before relying on its contents.]",
		path, strings.Join(lines, "\n"))
	return final, note, nil
}

func hunkLine(n int, s span, action tools.HunkAction, from, to int) string {
	proposed := fmt.Sprintf("hunk %d (your lines %d-%d, replacing lines %d-%d)", n, s.newStart, s.newStart+max(s.newLines, 1)-1,
		s.oldStart, s.oldStart+max(s.oldLines, 1)-1)
	switch action {
	case tools.HunkDrop:
		return fmt.Sprintf("- %s: dropped; lines %d-%d are as they were", proposed, from, to)
	case tools.HunkEdit:
		return fmt.Sprintf("- %s: edited by the person; now lines %d-%d", proposed, from, to)
	}
	return fmt.Sprintf("- %s: kept; now lines %d-%d", proposed, from, to)
}
