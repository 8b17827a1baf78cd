package store

import (
	"encoding/json"
	"fmt"
	"strings"
)

// NotePrefix opens every message Loopdesk itself adds to the conversation: a restore, a
// compaction summary, a reverted hunk, an edited plan. The model reads it in the user role
// (the only role every provider accepts between turns), so the frame is what tells it apart
// from the person's own words.
const NotePrefix = "[loopdesk note: this message is from the Loopdesk application, not from the person]"

// Frame wraps text in Loopdesk's note frame.
func Frame(text string) string { return NotePrefix + "\n" + text }

// Framed is the fold's text as the model reads it: a note naming the rows it replaces.
func (f Fold) Framed() string {
	from := f.FromSeq
	if from == 0 {
		from = 1
	}
	if f.FromSeq > 0 {
		return Frame(f.Text) // a set-aside's text is the note itself (core.SetAsideNote)
	}
	return Frame(fmt.Sprintf("A summary of rows %d–%d of this conversation, which it replaces to save context:", from, f.ThroughSeq) +
		"\n\n" + f.Text)
}

// NoteText is the framed text the model reads for a restore or note row.
func NoteText(c Chunk) (string, error) {
	switch c.Kind {
	case KindNote:
		var p NotePayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return "", err
		}
		return Frame(p.Text), nil
	case KindRestore:
		var p RestorePayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return "", err
		}
		return Frame(restoreNote(p)), nil
	}
	return "", fmt.Errorf("row %d (%s) is not a note", c.Seq, c.Kind)
}

func restoreNote(p RestorePayload) string {
	var b strings.Builder
	scope := "files of the folder"
	if p.Path != "" {
		scope = p.Path
	}
	fmt.Fprintf(&b, "The person restored %s to their state before row %d of this conversation.", scope, p.ToSeq)
	if len(p.Restored) == 0 {
		b.WriteString(" Nothing needed to change.")
	} else {
		b.WriteString(" These paths went back:")
		for _, r := range p.Restored {
			fmt.Fprintf(&b, "\n- %s (undoing: %s)", r.Path, r.Change)
		}
	}
	if len(p.Skipped) > 0 {
		fmt.Fprintf(&b, "\nCould not be restored (left as they are): %s", strings.Join(p.Skipped, ", "))
	}
	b.WriteString("\nEdits made after that row to these paths no longer exist: read a file again before relying on its contents.")
	return b.String()
}
