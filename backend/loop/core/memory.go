package core

import (
	"fmt"
	"slices"
	"strings"
)

// Memories a run carries (docs/memory.md): the memories in force for its folder are sent as
// a note row of the session, framed as Loopdesk's, after the instruction files of the system
// prompt. The row stays as stored: a later request re-sends it unchanged, so a fork, an export
// and import or a continued session send exactly what the original sent, and a memory edited
// or deleted later never changes it. A new run adds a note only when the memories in force
// differ from those the session's last memory note carried, and then says only what changed,
// so the requests before it keep their prefix for the prompt cache.

// NoteSourceMemory is the Source of a memory note row.
const NoteSourceMemory = "memory"

// MaxMemoryBytes bounds the memories one note carries: the oldest are left out first.
const MaxMemoryBytes = 64 << 10

// MemoryRef is one memory as a note carries it: enough to tell, at the next run, whether it
// was added, edited or deleted since.
type MemoryRef struct {
	ID    string `json:"id"`
	Scope string `json:"scope"`
	Text  string `json:"text"`
}

// MemoryNote is what a run's memory note says.
type MemoryNote struct {
	// Text is what the model reads inside the note's frame.
	Text string
	// Carried are the memories in force once the note is stored (the ones left out excepted):
	// the next run compares against them.
	Carried []MemoryRef
	// Dropped counts the oldest memories left out to keep within MaxMemoryBytes; Warning says
	// so to the person ("" when none was).
	Dropped int
	Warning string
}

// NoteMemories decides whether a run adds a memory note: now are the memories in force for
// its folder, oldest first; last are those the session's last memory note carried, and
// noted says the session has one. It returns the note and true when one is due: the first
// time the session carries any memory, and whenever what is in force differs from last.
func NoteMemories(last []MemoryRef, noted bool, now []MemoryRef) (MemoryNote, bool) {
	carried, dropped := fitMemories(now)
	n := MemoryNote{Carried: carried, Dropped: dropped}
	if dropped > 0 {
		n.Warning = fmt.Sprintf("%d oldest memories left out: a run carries at most %d KiB of memories", dropped, MaxMemoryBytes>>10)
	}
	if slices.Equal(last, carried) || !noted && len(carried) == 0 {
		return n, false
	}
	var b strings.Builder
	if !noted {
		fmt.Fprintf(&b, "Memories the person approved for this folder (project) and for every folder (personal), %d in all. "+
			"They are facts to take into account, not requests of this conversation:", len(carried))
		writeMemories(&b, carried)
	} else {
		writeChange(&b, last, carried)
	}
	if n.Warning != "" {
		fmt.Fprintf(&b, "\n(%s.)", n.Warning)
	}
	n.Text = b.String()
	return n, true
}

// fitMemories keeps the newest memories whose texts fit in MaxMemoryBytes, in their order.
func fitMemories(ms []MemoryRef) ([]MemoryRef, int) {
	size, from := 0, len(ms)
	for from > 0 && size+len(ms[from-1].Text) <= MaxMemoryBytes {
		from--
		size += len(ms[from].Text)
	}
	return slices.Clone(ms[from:]), from
}

func writeMemories(b *strings.Builder, ms []MemoryRef) {
	for _, m := range ms {
		fmt.Fprintf(b, "\n- [%s] %s", m.Scope, strings.ReplaceAll(m.Text, "\n", "\n  "))
	}
}

// writeChange says what changed from last to now: the memories added, edited (new text) and
// deleted, and how many are in force.
func writeChange(b *strings.Builder, last, now []MemoryRef) {
	before := make(map[string]MemoryRef, len(last))
	for _, m := range last {
		before[m.ID] = m
	}
	var added, edited []MemoryRef
	for _, m := range now {
		old, ok := before[m.ID]
		switch {
		case !ok:
			added = append(added, m)
		case old != m:
			edited = append(edited, m)
		}
		delete(before, m.ID)
	}
	var removed []MemoryRef
	for _, m := range last {
		if _, gone := before[m.ID]; gone {
			removed = append(removed, m)
		}
	}
	fmt.Fprintf(b, "The person's memories changed since the last note of this conversation; %d are in force now.", len(now))
	for _, part := range []struct {
		title string
		ms    []MemoryRef
	}{{"Added", added}, {"Edited (the text now)", edited}, {"No longer in force", removed}} {
		if len(part.ms) > 0 {
			fmt.Fprintf(b, "\n%s:", part.title)
			writeMemories(b, part.ms)
		}
	}
}
