package memory

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Export is a folder's memories as Markdown: the project ones, then the personal ones, one
// list item each, its provenance in an HTML comment (Entries reads the file back without it).
func Export(ms []store.Memory, workspace string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Memories of %s\n", workspace)
	for _, scope := range []store.MemoryScope{store.MemoryProject, store.MemoryPersonal} {
		title := map[store.MemoryScope]string{store.MemoryProject: "Project", store.MemoryPersonal: "Personal"}[scope]
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		n := 0
		for _, m := range ms {
			if m.Scope != scope {
				continue
			}
			n++
			fmt.Fprintf(&b, "- %s <!-- %s -->\n", strings.ReplaceAll(m.Text, "\n", "\n  "), Provenance(m))
		}
		if n == 0 {
			b.WriteString("(none)\n")
		}
	}
	return b.String()
}

// Provenance says where a memory came from, in words: "memory ID, from session S row N",
// "memory ID, added by the person" or "memory ID, imported from FILE".
func Provenance(m store.Memory) string {
	switch {
	case m.Source != nil:
		return fmt.Sprintf("memory %s, from session %s row %d", m.ID, m.Source.SessionID, m.Source.Seq)
	case m.Origin != "":
		return fmt.Sprintf("memory %s, imported from %s", m.ID, m.Origin)
	}
	return fmt.Sprintf("memory %s, added by the person", m.ID)
}

var (
	comment  = regexp.MustCompile(`(?s)<!--.*?-->`)
	listItem = regexp.MustCompile(`^(?:[-*+]|\d+[.)])\s+(.*)$`)
	heading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// Entries reads the entries of a Markdown file people keep memories in: each list item (its
// indented continuation lines with it) and each paragraph outside a list is one entry;
// headings, HTML comments, "(none)" and front matter are not. A file named AGENTS.md gives
// only the items of its "## Memory" section (none when it has no such section).
func Entries(name, text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = stripFrontMatter(text)
	text = comment.ReplaceAllString(text, "")
	if strings.EqualFold(filepath.Base(name), "AGENTS.md") {
		text = section(text, "memory")
	}
	var out []string
	var cur []string
	flush := func() {
		if e := strings.TrimSpace(strings.Join(cur, "\n")); e != "" && e != "(none)" {
			out = append(out, e)
		}
		cur = nil
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch m := listItem.FindStringSubmatch(trimmed); {
		case trimmed == "" || heading.MatchString(trimmed) || trimmed == "---":
			flush()
		case m != nil && !strings.HasPrefix(line, "  "):
			flush()
			cur = append(cur, m[1])
		default:
			cur = append(cur, trimmed)
		}
	}
	flush()
	return out
}

// section is the body of the level-2 heading named title (case-insensitive) down to the next
// heading of level 1 or 2, or "" when there is none.
func section(text, title string) string {
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if start < 0 {
			if strings.HasPrefix(t, "## ") && strings.EqualFold(strings.TrimSpace(strings.TrimLeft(t, "#")), title) {
				start = i + 1
			}
			continue
		}
		if strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "## ") {
			return strings.Join(lines[start:i], "\n")
		}
	}
	if start < 0 {
		return ""
	}
	return strings.Join(lines[start:], "\n")
}

func stripFrontMatter(text string) string {
	if !strings.HasPrefix(text, "---\n") {
		return text
	}
	if end := strings.Index(text[4:], "\n---\n"); end >= 0 {
		return text[4+end+5:]
	}
	return text
}
