package transcript

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Limits of one tool result in the transcript; the JSON export keeps it whole.
const (
	MaxResultLines = 80
	MaxResultBytes = 8 << 10
)

// Reader is what Export reads a session from (*store.DB).
type Reader interface {
	GetSession(ctx context.Context, id string) (store.Session, error)
	Chunks(ctx context.Context, sessionID string) ([]store.Chunk, error)
}

// Options say what to do with a message's images.
type Options struct {
	// SaveImage writes an image as a file next to the transcript and returns the path to link
	// it by (relative to the transcript). Nil: images are listed by name and hash only.
	SaveImage func(ref store.ImageRef) (string, error)
}

// Export writes the stored session id as a Markdown transcript to w.
func Export(ctx context.Context, db Reader, id string, w io.Writer, opt Options) error {
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return err
	}
	rows, err := db.Chunks(ctx, id)
	if err != nil {
		return err
	}
	return Markdown(w, s, rows, opt)
}

// Markdown writes session s with its rows as a Markdown transcript to w.
func Markdown(w io.Writer, s store.Session, rows []store.Chunk, opt Options) error {
	b := bufio.NewWriter(plain{w})
	header(b, s)
	ex, err := store.ExclusionsOf(rows)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := row(b, r, ex, opt); err != nil {
			return fmt.Errorf("row %d: %w", r.Seq, err)
		}
	}
	return b.Flush()
}

func header(b *bufio.Writer, s store.Session) {
	fmt.Fprintf(b, "# %s\n\n", oneLine(s.Title))
	fmt.Fprintf(b, "- Session: `%s`\n", s.ID)
	if s.Workspace != "" {
		fmt.Fprintf(b, "- Folder: `%s`\n", s.Workspace)
	}
	if s.Model != "" {
		fmt.Fprintf(b, "- Model: %s\n", s.Model)
	}
	switch {
	case s.ParentCallID != "":
		fmt.Fprintf(b, "- Child session started by task call `%s` of `%s`\n", s.ParentCallID, s.ParentID)
	case s.ParentID != "":
		fmt.Fprintf(b, "- Forked from `%s` after row %d\n", s.ParentID, s.ForkSeq)
	}
	fmt.Fprintf(b, "- Started: %s\n\n", s.CreatedAt.UTC().Format(time.RFC3339))
}

// row writes one row; unknown kinds are skipped (the set is closed in store).
// ex are the session's image exclusions.
func row(b *bufio.Writer, r store.Chunk, ex store.Exclusions, opt Options) error {
	switch r.Kind {
	case store.KindUser:
		var p store.UserPayload
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			return err
		}
		ex.Apply(r.Seq, &p)
		fmt.Fprintf(b, "## You (#%d)\n\n", r.Seq)
		if p.Text != "" {
			fmt.Fprintf(b, "%s\n\n", p.Text)
		}
		return imagesOf(b, p.Images, opt)
	case store.KindAssistant:
		var p store.AssistantPayload
		return section(b, r, &p, func() { assistant(b, r.Seq, p) })
	case store.KindToolResult:
		var p store.ToolResultPayload
		return section(b, r, &p, func() { result(b, p) })
	case store.KindApproval:
		var p store.ApprovalPayload
		return section(b, r, &p, func() { approval(b, p) })
	case store.KindNote:
		var p store.NotePayload
		return section(b, r, &p, func() { fmt.Fprintf(b, "> **Loopdesk note** (%s): %s\n\n", p.Source, quote(p.Text)) })
	case store.KindSummary:
		var p store.SummaryPayload
		return section(b, r, &p, func() {
			fmt.Fprintf(b, "<details><summary>Summary of rows through #%d</summary>\n\n%s\n\n</details>\n\n", p.ThroughSeq, p.Text)
		})
	case store.KindRestore:
		var p store.RestorePayload
		return section(b, r, &p, func() {
			fmt.Fprintf(b, "> **Files restored** to their state before row %d: %d file(s)\n\n", p.ToSeq, len(p.Restored))
		})
	}
	return nil
}

// imagesOf links each image to the file SaveImage wrote, or names it when there is none.
func imagesOf(b *bufio.Writer, refs []store.ImageRef, opt Options) error {
	for i, im := range refs {
		name := oneLine(im.Name)
		if name == "" {
			name = fmt.Sprintf("image %d", i+1)
		}
		note := ""
		if im.Excluded {
			note = " (excluded from context)"
		}
		if opt.SaveImage == nil {
			fmt.Fprintf(b, "- Image: %s, %dx%d, sha256 %s%s\n", name, im.Width, im.Height, im.Hash, note)
			continue
		}
		path, err := opt.SaveImage(im)
		if err != nil {
			return fmt.Errorf("image %s: %w", name, err)
		}
		fmt.Fprintf(b, "![%s](%s)%s\n", strings.NewReplacer("[", "(", "]", ")").Replace(name), path, note)
	}
	if len(refs) > 0 {
		b.WriteString("\n")
	}
	return nil
}

// section decodes the row's payload into p and, when it decodes, writes it with write.
func section(b *bufio.Writer, r store.Chunk, p any, write func()) error {
	if err := json.Unmarshal(r.Payload, p); err != nil {
		return err
	}
	write()
	return nil
}

func assistant(b *bufio.Writer, seq int64, p store.AssistantPayload) {
	fmt.Fprintf(b, "## Assistant (#%d)\n\n", seq)
	if p.Reasoning != "" {
		fmt.Fprintf(b, "<details><summary>Reasoning</summary>\n\n%s\n\n</details>\n\n", p.Reasoning)
	}
	if p.Text != "" {
		fmt.Fprintf(b, "%s\n\n", p.Text)
	}
	for _, c := range p.ToolCalls {
		fmt.Fprintf(b, "### Tool call `%s`\n\n", oneLine(c.Name))
		fence(b, "json", pretty(c.Arguments))
	}
}

func result(b *bufio.Writer, p store.ToolResultPayload) {
	label := "Result"
	if p.IsError {
		label = "Result (error)"
	}
	fmt.Fprintf(b, "**%s** of `%s`:\n\n", label, oneLine(p.Name))
	text, note := cut(p.Content)
	fence(b, "", text)
	if note != "" {
		fmt.Fprintf(b, "_%s_\n\n", note)
	}
}

func approval(b *bufio.Writer, p store.ApprovalPayload) {
	decision := map[store.Decision]string{store.DecisionApproved: "Approved", store.DecisionDenied: "Denied"}[p.Decision]
	if decision == "" {
		decision = "Decided (" + oneLine(string(p.Decision)) + ")"
	}
	fmt.Fprintf(b, "**%s** `%s` (by %s)", decision, oneLine(p.Tool), p.By)
	if p.Reason != "" {
		fmt.Fprintf(b, ": %s", oneLine(p.Reason))
	}
	b.WriteString("\n\n")
	if p.Arguments != "" {
		b.WriteString("Edited arguments that ran:\n\n")
		fence(b, "json", pretty(p.Arguments))
	}
}

// cut shortens a long result and says what was left out.
func cut(s string) (string, string) {
	lines := strings.Split(s, "\n")
	short := s
	if len(lines) > MaxResultLines {
		short = strings.Join(lines[:MaxResultLines], "\n")
	}
	if len(short) > MaxResultBytes {
		short = short[:MaxResultBytes]
		for !utf8.ValidString(short) { // never half a character
			short = short[:len(short)-1]
		}
	}
	if short == s {
		return s, ""
	}
	total := strings.Count(strings.TrimRight(s, "\n"), "\n") + 1
	shown := strings.Count(short, "\n") + 1
	return short, fmt.Sprintf("… %d more lines (%d bytes) cut here; the JSON export (--format jsonl) holds the whole output.",
		total-shown, len(s)-len(short))
}

// fence writes text in a code fence longer than any backtick run inside it.
func fence(b *bufio.Writer, lang, text string) {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", f, lang, strings.TrimRight(text, "\n"), f)
}

// pretty indents JSON arguments; anything else is shown as it is.
func pretty(args string) string {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return args
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return args
	}
	return string(out)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// quote keeps a multi-line note inside its blockquote.
func quote(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ") }

// plain drops control characters (terminal escapes in a tool's output, NULs) on the way to
// w, keeping newlines and tabs: a transcript shown with cat cannot move the cursor or recolour
// the terminal. UTF-8 sequences are untouched (all their bytes are >= 0x80).
type plain struct{ w io.Writer }

func (p plain) Write(b []byte) (int, error) {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if (c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t' {
			out = append(out, c)
		}
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
