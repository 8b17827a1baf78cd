package checkpoint

import (
	"bytes"
	"fmt"
	"strings"
)

// Line diffs for hunks: Myers' O((N+M)D) algorithm over whole lines (each
// line keeps its "\n", so a last line without one differs from the same
// line with one, as in diff(1)).

// op is one step of an edit script: a line kept (' '), removed ('-') from
// a, or added ('+') from b. A and B are the line indexes in a and b.
type op struct {
	kind byte
	a, b int
}

// maxDiffWork bounds the Myers search (N+M times D) and maxTrace the
// memory its backtrack keeps (about D² ints: 2M ints, 16 MB, D ≈ 1,400);
// past either the files are treated as one replacement, which is still a
// correct (if coarse) diff.
const (
	maxDiffWork = 50_000_000
	maxTrace    = 2_000_000
)

// splitLines splits data into lines, each keeping its "\n".
func splitLines(data []byte) []string {
	var out []string
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, string(data))
			break
		}
		out = append(out, string(data[:i+1]))
		data = data[i+1:]
	}
	return out
}

// isBinary: the content holds a NUL byte near its start, as git decides.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// diffLines returns an edit script turning a into b.
func diffLines(a, b []string) []op {
	// Common prefix and suffix cost nothing to match and keep D small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []op
	for i := 0; i < pre; i++ {
		out = append(out, op{' ', i, i})
	}
	for _, o := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		out = append(out, op{o.kind, o.a + pre, o.b + pre})
	}
	for i := 0; i < suf; i++ {
		out = append(out, op{' ', len(a) - suf + i, len(b) - suf + i})
	}
	return out
}

func myers(a, b []string) []op {
	n, m := len(a), len(b)
	max := n + m
	if max == 0 {
		return nil
	}
	v := make([]int, 2*max+3)
	off := max + 1
	var trace [][]int // trace[d]: v[k] for k in -d-1..d+1 before step d
	kept := 0
	for d := 0; d <= max; d++ {
		if kept += 2*d + 3; (n+m)*d > maxDiffWork || kept > maxTrace {
			return replaceAll(n, m)
		}
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m)
			}
		}
	}
	return replaceAll(n, m)
}

func backtrack(trace [][]int, n, m int) []op {
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		snap := trace[d]
		at := func(k int) int { return snap[k+d+1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := 0
		if d > 0 {
			px = at(pk)
		}
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, op{' ', x, y})
		}
		if d == 0 {
			break
		}
		if x == px {
			rev = append(rev, op{'+', x, py})
		} else {
			rev = append(rev, op{'-', px, y})
		}
		x, y = px, py
	}
	out := make([]op, len(rev))
	for i := range rev {
		out[i] = rev[len(rev)-1-i]
	}
	return out
}

func replaceAll(n, m int) []op {
	out := make([]op, 0, n+m)
	for i := 0; i < n; i++ {
		out = append(out, op{'-', i, 0})
	}
	for j := 0; j < m; j++ {
		out = append(out, op{'+', n, j})
	}
	return out
}

// span is one hunk of an edit script: ops[from:to], with its line ranges.
type span struct {
	from, to                               int
	oldStart, oldLines, newStart, newLines int // unified-diff numbering
	oldAt, newAt                           int // 0-based first line on each side
}

// spans groups the changed ops with ctx lines of context around each,
// merging groups whose contexts overlap or touch (as diff -U ctx does).
func spans(ops []op, ctx int) []span {
	var out []span
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		from := max(0, i-ctx)
		end := i // last changed op of the group
		for j := i; j < len(ops) && j <= end+2*ctx+1; j++ {
			if ops[j].kind != ' ' {
				end = j
			}
		}
		to := min(len(ops), end+1+ctx)
		out = append(out, measure(ops, from, to))
		i = to
	}
	return out
}

func measure(ops []op, from, to int) span {
	s := span{from: from, to: to, oldAt: ops[from].a, newAt: ops[from].b}
	for _, o := range ops[from:to] {
		if o.kind != '+' {
			s.oldLines++
		}
		if o.kind != '-' {
			s.newLines++
		}
	}
	// Unified diff numbers an empty range by the line before it.
	s.oldStart, s.newStart = s.oldAt+1, s.newAt+1
	if s.oldLines == 0 {
		s.oldStart--
	}
	if s.newLines == 0 {
		s.newStart--
	}
	return s
}

// patch renders a span as a unified-diff hunk.
func patch(ops []op, s span, a, b []string) string {
	var w strings.Builder
	fmt.Fprintf(&w, "@@ -%s +%s @@\n", rng(s.oldStart, s.oldLines), rng(s.newStart, s.newLines))
	for _, o := range ops[s.from:s.to] {
		line := ""
		if o.kind == '+' {
			line = b[o.b]
		} else {
			line = a[o.a]
		}
		w.WriteByte(o.kind)
		w.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			w.WriteString("\n\\ No newline at end of file\n")
		}
	}
	return w.String()
}

func rng(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// sides returns the hunk's lines as they were (a side) and as they became
// (b side), context included.
func sides(ops []op, s span, a, b []string) (old, new []string) {
	for _, o := range ops[s.from:s.to] {
		if o.kind != '+' {
			old = append(old, a[o.a])
		}
		if o.kind != '-' {
			new = append(new, b[o.b])
		}
	}
	return old, new
}
