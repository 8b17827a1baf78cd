package desktop_test

import (
	"slices"
	"testing"
)

// The chunk table filtered by kind and the find bar reach rows the page does not hold.
func TestRowSeqsAndFindInSessionReachRowsThePageDoesNotHold(t *testing.T) {
	app := newTestApp(t, "")
	id := importRows(t, app.dbPath, 400)

	seqs, err := app.RowSeqs(id, "tool_result")
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 100 || seqs[0] != 3 || seqs[99] != 399 {
		t.Fatalf("tool_result seqs: %d of them, %v…%v; want 100, 3…399", len(seqs), seqs[:1], seqs[len(seqs)-1:])
	}
	if _, err := app.RowSeqs(id, "nonsense"); err == nil {
		t.Fatal("an unknown kind was accepted")
	}

	// "file 7" and a line's end: only row 31's result ("// file 7\n"; 70 to 79 go on with a
	// digit); case does not matter.
	got, err := app.FindInSession(id, "FILE 7\n", 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int64{31}) {
		t.Fatalf("matches of %q: %v, want [31]", "FILE 7\\n", got)
	}
	got, err = app.FindInSession(id, "question 9", 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// Question 9, 90..99: one match in each of their user rows.
	if len(got) != 11 || got[0] != 37 {
		t.Fatalf("matches of question 9: %v", got)
	}
	// The rows the page renders (37..361 here) are not searched again.
	if got, _ = app.FindInSession(id, "question 9", 37, 361); len(got) != 9 || got[0] != 365 {
		t.Fatalf("matches outside 37..361: %v", got)
	}
	if got, _ = app.FindInSession(id, "  ", 1000, 1000); len(got) != 0 {
		t.Fatalf("blank text found %v", got)
	}
}
