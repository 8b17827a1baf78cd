package core

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

// CutAt moves a cut the person chose (the seq of any row) to the end of that row's step, so
// an assistant turn keeps its results: the last row before the next user or assistant row.
// ok is false when the rows through the cut are already summarised or hold nothing to
// summarise.
func CutAt(rows []RowRef, seq int64) (throughSeq int64, ok bool) {
	var prev int64
	for _, r := range rows {
		if r.Kind == KindSummary && r.ThroughSeq > prev {
			prev = r.ThroughSeq
		}
	}
	i := -1
	for j, r := range rows {
		if r.Seq <= seq {
			i = j
		}
	}
	if i < 0 {
		return 0, false
	}
	for i+1 < len(rows) && rows[i+1].Kind != KindUser && rows[i+1].Kind != KindAssistant {
		i++
	}
	for j := i; j >= 0; j-- {
		switch rows[j].Kind {
		case KindUser, KindAssistant, KindToolResult:
			if rows[j].Seq > prev {
				return rows[i].Seq, true
			}
		}
	}
	return 0, false
}
