package core

import "fmt"

// Steering a run from the core's side: messages the person queues while it runs, and the
// ways a run makes room when the model server refuses a request for its length.

// SetAsideNote is what the model reads in place of an exchange set aside after the session
// hit the context limit. The rows stay stored; the person sees the note as a row.
func SetAsideNote(from, through int64) string {
	return fmt.Sprintf("The exchange in rows %d-%d was set aside: it did not fit in the model's "+
		"context window. It is still stored and the person can read it; continue from the request that follows.", from, through)
}

func onQueued(s State, in MessageQueued) (State, []Effect, error) {
	m := in.Message
	if m.ID == "" || m.Text == "" {
		return s, nil, fmt.Errorf("queued message without id or text: %w", ErrBadInput)
	}
	for _, q := range s.queued {
		if q.ID == m.ID {
			return s, nil, fmt.Errorf("queued message %s twice: %w", m.ID, ErrBadInput)
		}
	}
	s.queued = append(s.queued, m)
	return s, []Effect{Emit{s.queueChanged(nil)}}, nil
}

func onWithdrawn(s State, in QueueWithdrawn) (State, []Effect) {
	for i, q := range s.queued {
		if q.ID == in.ID {
			s.queued = append(s.queued[:i:i], s.queued[i+1:]...)
			return s, []Effect{Emit{s.queueChanged(nil)}}
		}
	}
	return s, nil // delivered already, or never queued here: nothing to take back
}

func (s State) queueChanged(delivered []string) QueueChangedPayload {
	q := s.queued
	if q == nil {
		q = []QueuedMessage{}
	}
	if delivered == nil {
		delivered = []string{}
	}
	return QueueChangedPayload{Queued: q, Delivered: delivered}
}

// deliverQueued stores every queued message as a user row, in the order sent. Callers make
// sure no call of the current turn is waiting for its result.
func deliverQueued(s State) (State, []Effect) {
	if len(s.queued) == 0 {
		return s, nil
	}
	rows := make([]Row, len(s.queued))
	ids := make([]string, len(s.queued))
	for i, q := range s.queued {
		rows[i], ids[i] = UserRow{Text: q.Text, QueuedID: q.ID}, q.ID
		s.ContextTokens += EstimateTokens(q.Text) + resultTokenExtra
	}
	s.queued = nil
	return s, []Effect{Persist{rows}, Emit{s.queueChanged(ids)}}
}

// onTooLong answers a request the server refused for its length: compact and retry once;
// in a recovery run, set the in-flight exchange aside; otherwise stop as context_exceeded.
func onTooLong(s State, detail string) (State, []Effect) {
	if s.Limits.ContextWindow > 0 && s.ContextTokens < s.Limits.ContextWindow {
		s.ContextTokens = s.Limits.ContextWindow // the server says it is full, whatever we estimated
	}
	switch {
	case !s.lengthRetried:
		s.lengthRetried, s.retrying = true, true
		budget := Emit{s.budget()}
		s, more := compact(s, emergencyKeepTurn, true, 0)
		return s, append([]Effect{budget}, more...)
	case s.canSetAside():
		s, out := setAside(s)
		s, more := callModel(s)
		return s, append(out, more...)
	}
	return stop(s, StopContextExceeded, "the model server refused the request for its length again after compaction: "+detail)
}

// afterRoomMade follows the Compact of a length refusal or of a recovery run. When the
// summary did not make room, the in-flight exchange is set aside if this run may; a refused
// request that cannot be helped ends the run.
func afterRoomMade(s State, in Compacted) (State, []Effect) {
	retrying := s.retrying
	s.retrying, s.recovering = false, false
	var out []Effect
	if !in.OK || s.contextFill() >= EmergencyCompact {
		switch {
		case s.canSetAside():
			s, out = setAside(s)
		case retrying:
			detail := "the model server refused the request for its length and compaction could not make room"
			if in.Err != "" {
				detail += ": " + in.Err
			}
			return stop(s, StopContextExceeded, detail)
		}
	}
	if r, detail := s.hardStop(); r != "" {
		s, more := stop(s, r, detail)
		return s, append(out, more...)
	}
	s, more := callModel(s)
	return s, append(out, more...)
}

func (s State) canSetAside() bool {
	return s.recover != nil && !s.setAsideDone && s.recover.FromSeq > 0 && s.recover.ThroughSeq >= s.recover.FromSeq
}

// setAside stores the note that replaces the in-flight exchange in later requests.
func setAside(s State) (State, []Effect) {
	r := *s.recover
	s.setAsideDone = true
	s.ContextTokens = max(s.ContextTokens-r.Tokens, 0)
	note := SetAsideNote(r.FromSeq, r.ThroughSeq)
	s.ContextTokens += EstimateTokens(note) + resultTokenExtra
	return s, []Effect{
		Persist{[]Row{SummaryRow{Text: note, FromSeq: r.FromSeq, ThroughSeq: r.ThroughSeq}}},
		Emit{CompactedPayload{FromSeq: r.FromSeq, ThroughSeq: r.ThroughSeq, Summary: note, ContextTokens: s.ContextTokens, Emergency: true}},
		Emit{s.budget()},
	}
}

// compactionDone ends a run that was one compaction the person asked for.
func compactionDone(s State, in Compacted) (State, []Effect) {
	if in.OK {
		return stop(s, StopCompleted, "")
	}
	return stop(s, StopProviderError, "compaction failed: "+orDefault(in.Err, "nothing to summarise"))
}
