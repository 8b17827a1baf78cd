package checkpoint

import (
	"io/fs"
	"testing"
)

func TestDiff(t *testing.T) {
	file := func(sha string, mode fs.FileMode) *Entry {
		return &Entry{Kind: KindFile, SHA256: sha, Mode: mode, Size: 1}
	}
	dir := &Entry{Kind: KindDir, Mode: 0o755}
	link := func(t string) *Entry { return &Entry{Kind: KindLink, Target: t} }
	cases := []struct {
		name     string
		old, new *Entry
		want     ChangeKind
		changed  bool
	}{
		{"absent both", nil, nil, "", false},
		{"created", nil, file("a", 0o644), Created, true},
		{"deleted", file("a", 0o644), nil, Deleted, true},
		{"content", file("a", 0o644), file("b", 0o644), Modified, true},
		{"content and mode is one modified", file("a", 0o644), file("b", 0o755), Modified, true},
		{"mode only", file("a", 0o644), file("a", 0o755), ModeOnly, true},
		{"deleted and re-created with the same content", file("a", 0o644), file("a", 0o644), "", false},
		{"empty file created", nil, &Entry{Kind: KindFile, SHA256: "e3b0c442"}, Created, true},
		{"file to folder", file("a", 0o644), dir, Modified, true},
		{"folder to file", dir, file("a", 0o644), Modified, true},
		{"folder mode", dir, &Entry{Kind: KindDir, Mode: 0o700}, ModeOnly, true},
		{"link retargeted", link("x"), link("y"), Modified, true},
		{"link same", link("x"), link("x"), "", false},
		{"file to link", file("a", 0o644), link("a"), Modified, true},
	}
	for _, c := range cases {
		got, changed := diff(c.old, c.new)
		if got != c.want || changed != c.changed {
			t.Errorf("%s: diff = %q %v, want %q %v", c.name, got, changed, c.want, c.changed)
		}
	}
}

// Content-defined chunks: an edit in the middle of a file changes the chunk
// it falls in, and the chunks before and after keep their bytes.
func TestChunksFollowContent(t *testing.T) {
	data := make([]byte, 200_000)
	x := uint32(1)
	for i := range data {
		x = x*1664525 + 1013904223
		data[i] = byte(x >> 24)
	}
	a := chunks(data)
	edited := append(append(append([]byte{}, data[:100_000]...), "an inserted line\n"...), data[100_000:]...)
	b := chunks(edited)
	set := map[string]bool{}
	total := 0
	for _, c := range a {
		set[string(c)] = true
		total += len(c)
		if len(c) > chunkMax {
			t.Fatalf("chunk of %d bytes", len(c))
		}
	}
	if total != len(data) || len(a) < 20 {
		t.Fatalf("%d chunks covering %d bytes", len(a), total)
	}
	fresh := 0
	for _, c := range b {
		if !set[string(c)] {
			fresh++
		}
	}
	if fresh > 2 {
		t.Fatalf("an insertion changed %d of %d chunks", fresh, len(b))
	}
}
