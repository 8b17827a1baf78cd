package core

import "slices"

// The session's rows as the core knows them: enough to choose a compaction's cut and to find
// the exchange that was in flight when the session hit the context limit. The runner hands
// them over on Started (the rows before the run) and Stored (the rows since), converted at its
// boundary; the core never reads the store.

// RowRef is what the core needs to know about a stored row.
type RowRef struct {
	Seq  int64   `json:"seq"`
	Kind RowKind `json:"kind"`
	// ThroughSeq is set on a summary row in effect (neither undone nor superseded): the last
	// seq it replaces; with FromSeq > 0 it sets only rows FromSeq..ThroughSeq aside.
	ThroughSeq int64 `json:"through_seq,omitempty"`
	FromSeq    int64 `json:"from_seq,omitempty"`
	// Tokens is the row's estimated size as a message (EstimateMessage of its payload).
	Tokens int64 `json:"tokens,omitempty"`
}

// rowLog holds a run's rows for every State that shares it. A state sees its first n refs;
// appending past another state's end copies first (appendRows), so states that branch from
// one another never see each other's rows, while a run that only moves forward appends in
// place.
type rowLog struct{ refs []RowRef }

// rowsOf returns the rows s knows, oldest first.
func (s State) rowsOf() []RowRef {
	if s.rows == nil {
		return nil
	}
	return s.rows.refs[:s.nrows:s.nrows]
}

// appendRows adds refs to the rows s knows.
func appendRows(s State, refs []RowRef) State {
	if s.rows == nil || len(s.rows.refs) != s.nrows {
		s.rows = &rowLog{refs: slices.Clone(s.rowsOf())}
	}
	s.rows.refs = append(s.rows.refs, refs...)
	s.nrows = len(s.rows.refs)
	return s
}

// summarised is the last seq a compaction in effect replaced (0: none).
func summarised(rows []RowRef) int64 {
	var prev int64
	for _, r := range rows {
		if r.Kind == KindSummary && r.FromSeq == 0 && r.ThroughSeq > prev {
			prev = r.ThroughSeq
		}
	}
	return prev
}

// InFlight finds the last exchange of a session: from its last user row (after anything
// already summarised or set aside) to its last row. nil when there is none.
func InFlight(rows []RowRef) *Recovery {
	var floor int64
	for _, r := range rows {
		if r.Kind == KindSummary {
			floor = max(floor, r.ThroughSeq)
		}
	}
	var from, last, tokens int64
	for _, r := range rows {
		if r.Seq <= floor || r.Kind == KindSummary {
			continue
		}
		if from == 0 && (r.Kind == KindUser || r.Kind == KindAssistant) {
			from = r.Seq
		}
		if r.Kind == KindUser {
			from, tokens = r.Seq, 0
		}
		if from > 0 {
			tokens += r.Tokens
			last = r.Seq
		}
	}
	if from == 0 {
		return nil
	}
	return &Recovery{FromSeq: from, ThroughSeq: last, Tokens: tokens}
}

// NoCut is why a compaction made no summary call: nothing new could be summarised.
const NoCut = "no complete turn to summarise"

// CompactionCut picks the last seq to summarise so that the latest keepTurns assistant turns
// stay verbatim. The cut always falls just before a user or assistant row, so an assistant turn
// is never separated from its tool results, and the prompt that led to the kept turns stays
// with them. ok is false when nothing new could be summarised.
func CompactionCut(rows []RowRef, keepTurns int) (throughSeq int64, ok bool) {
	if keepTurns < 1 {
		keepTurns = 1
	}
	prev := summarised(rows)
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
	prev := summarised(rows)
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
