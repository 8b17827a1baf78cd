package core

import (
	"strings"
	"testing"
)

// When a run adds a memory note, and what it says: every memory the first time, then only
// what changed, nothing when nothing did, and the oldest left out past MaxMemoryBytes.
func TestNoteMemories(t *testing.T) {
	a := MemoryRef{ID: "a", Scope: "project", Text: "make types after changing a bound type"}
	b := MemoryRef{ID: "b", Scope: "personal", Text: "answer in British English"}
	b2 := MemoryRef{ID: "b", Scope: "personal", Text: "answer in British English, briefly"}
	c := MemoryRef{ID: "c", Scope: "project", Text: "deploy with make release"}
	cases := []struct {
		name       string
		last       []MemoryRef
		noted      bool
		now        []MemoryRef
		due        bool
		says       []string
		doesNotSay []string
	}{
		{"no memories, no note", nil, false, nil, false, nil, nil},
		{"the first note lists them all", nil, false, []MemoryRef{a, b}, true,
			[]string{"2 in all", "- [project] " + a.Text, "- [personal] " + b.Text}, nil},
		{"nothing changed: no note, the cache keeps its prefix", []MemoryRef{a, b}, true, []MemoryRef{a, b}, false, nil, nil},
		{"a change says only the change", []MemoryRef{a, b}, true, []MemoryRef{b2, c}, true,
			[]string{"2 are in force", "Added:\n- [project] " + c.Text, "Edited (the text now):\n- [personal] " + b2.Text,
				"No longer in force:\n- [project] " + a.Text}, []string{"Added:\n- [personal]"}},
		{"all deleted", []MemoryRef{a}, true, nil, true, []string{"0 are in force", "No longer in force:\n- [project] " + a.Text}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, due := NoteMemories(c.last, c.noted, c.now)
			if due != c.due {
				t.Fatalf("due %v, want %v (%q)", due, c.due, n.Text)
			}
			for _, s := range c.says {
				if !strings.Contains(n.Text, s) {
					t.Errorf("the note does not say %q:\n%s", s, n.Text)
				}
			}
			for _, s := range c.doesNotSay {
				if strings.Contains(n.Text, s) {
					t.Errorf("the note says %q:\n%s", s, n.Text)
				}
			}
		})
	}
}

// Past MaxMemoryBytes the oldest memories are left out, with a warning, and the next run
// compares against what was carried, so the same memories add no second note.
func TestNoteMemoriesDropsTheOldestPast64KiB(t *testing.T) {
	var now []MemoryRef
	for i := range 20 {
		now = append(now, MemoryRef{ID: string(rune('a' + i)), Scope: "project", Text: strings.Repeat("x", 4000)})
	}
	n, due := NoteMemories(nil, false, now)
	if !due || n.Dropped != 4 || len(n.Carried) != 16 || n.Carried[0].ID != "e" {
		t.Fatalf("due %v, dropped %d, carried %d from %q", due, n.Dropped, len(n.Carried), n.Carried[0].ID)
	}
	if !strings.Contains(n.Warning, "4 oldest memories left out") || !strings.Contains(n.Text, n.Warning) {
		t.Fatalf("warning %q in %q", n.Warning, n.Text[len(n.Text)-120:])
	}
	if _, again := NoteMemories(n.Carried, true, now); again {
		t.Fatal("the same memories made a second note")
	}
}
