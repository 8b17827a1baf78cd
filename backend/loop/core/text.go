package core

import (
	"strings"
	"unicode/utf8"
)

// Cut returns s when it has at most n runes, else its first n-1 runes and "…" (n runes in
// all). It is the one place text is shortened for display: titles, tables, prompts.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == n-1 {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// Title is the title a session gets from its first message: the text on one line, its first
// 60 runes and "…" when longer.
func Title(text string) string { return Cut(strings.Join(strings.Fields(text), " "), 61) }
