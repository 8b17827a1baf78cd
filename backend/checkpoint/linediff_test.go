package checkpoint

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// Applying every hunk's sides in order rebuilds the new file from the old
// one, for random edits of random files.
func TestHunksRebuildTheNewFile(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"a\n", "b\n", "c\n", "d\n", "e"}
	for n := 0; n < 500; n++ {
		a := make([]string, rng.Intn(40))
		for i := range a {
			a[i] = words[rng.Intn(4)]
		}
		b := append([]string{}, a...)
		for k := rng.Intn(6); k > 0; k-- {
			i := rng.Intn(len(b) + 1)
			switch rng.Intn(3) {
			case 0:
				b = append(b[:i], append([]string{words[rng.Intn(5)]}, b[i:]...)...)
			case 1:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			default:
				if i < len(b) {
					b[i] = "x\n"
				}
			}
		}
		ops := diffLines(a, b)
		got, at := []string{}, 0
		for _, s := range spans(ops, 3) {
			old, new := sides(ops, s, a, b)
			got = append(append(got, a[at:s.oldAt]...), new...)
			at = s.oldAt + len(old)
		}
		got = append(got, a[at:]...)
		if strings.Join(got, "") != strings.Join(b, "") {
			t.Fatalf("case %d: a=%q b=%q got=%q", n, a, b, got)
		}
	}
}

func TestPatchText(t *testing.T) {
	a := []string{"one\n", "two\n", "three"}
	b := []string{"one\n", "2\n", "three\n"}
	ops := diffLines(a, b)
	ss := spans(ops, 3)
	if len(ss) != 1 {
		t.Fatalf("spans: %+v", ss)
	}
	want := "@@ -1,3 +1,3 @@\n one\n-two\n-three\n\\ No newline at end of file\n+2\n+three\n"
	if got := patch(ops, ss[0], a, b); got != want {
		t.Fatalf("patch:\n%s\nwant:\n%s", got, want)
	}
	created := diffLines(nil, []string{"x\n"})
	if s := spans(created, 3)[0]; s.oldStart != 0 || s.oldLines != 0 || s.newStart != 1 || s.newLines != 1 {
		t.Fatalf("created file span: %+v", s)
	}
}

// BenchmarkHunksOfABigEdit: a 5,000-line file with 100 scattered one-line edits, diffed
// into hunks (what Hunks does per change; docs/checkpoints.md gives the figure).
func BenchmarkHunksOfABigEdit(b *testing.B) {
	a := make([]string, 5000)
	for i := range a {
		a[i] = strings.Repeat("x", i%70) + "\n"
	}
	n := append([]string{}, a...)
	for i := 25; i < len(n); i += 50 {
		n[i] = "changed\n"
	}
	b.ResetTimer()
	for range b.N {
		ops := diffLines(a, n)
		for _, s := range spans(ops, HunkContext) {
			_ = patch(ops, s, a, n)
		}
	}
}

// BenchmarkHunksOfARewrite: a 5,000-line file rewritten whole (the bounded worst case).
func BenchmarkHunksOfARewrite(b *testing.B) {
	a, n := make([]string, 5000), make([]string, 5000)
	for i := range a {
		a[i], n[i] = fmt.Sprintf("old %d\n", i), fmt.Sprintf("new %d\n", i)
	}
	b.ResetTimer()
	for range b.N {
		ops := diffLines(a, n)
		for _, s := range spans(ops, HunkContext) {
			_ = patch(ops, s, a, n)
		}
	}
}
