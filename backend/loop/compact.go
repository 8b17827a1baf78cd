package loop

// RowRef is what CompactionCut needs to know about a stored row.
type RowRef struct {
	Seq  int64
	Kind RowKind
	// ThroughSeq is set on summary rows: the last seq that summary replaced.
	ThroughSeq int64
}

// CompactionCut picks the last seq to summarise so that the latest keepTurns assistant turns
// stay verbatim. The cut always falls just before a user or assistant row, so an assistant turn
// is never separated from its tool results, and the prompt that led to the kept turns stays
// with them. ok is false when nothing new could be summarised.
func CompactionCut(rows []RowRef, keepTurns int) (throughSeq int64, ok bool) {
	if keepTurns < 1 {
		keepTurns = 1
	}
	var prev int64
	for _, r := range rows {
		if r.Kind == KindSummary && r.ThroughSeq > prev {
			prev = r.ThroughSeq
		}
	}
	start := len(rows)
	for i, seen := len(rows)-1, 0; i >= 0; i-- {
		if rows[i].Kind == KindAssistant {
			seen++
			if seen == keepTurns {
				start = i
				break
			}
		}
	}
	if start == len(rows) {
		return 0, false // fewer assistant turns than we must keep
	}
	for start > 0 && rows[start-1].Kind == KindUser {
		start--
	}
	for i := start - 1; i >= 0; i-- {
		switch rows[i].Kind {
		case KindUser, KindAssistant, KindToolResult:
			if rows[i].Seq > prev {
				return rows[start-1].Seq, true
			}
		}
	}
	return 0, false
}
