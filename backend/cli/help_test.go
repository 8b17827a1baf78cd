package cli

import (
	"strings"
	"testing"
)

func TestWriteTableAlignsEachEntrysCellsUnderTheHeader(t *testing.T) {
	type row struct {
		name string
		n    int64
		ok   bool
	}
	var b strings.Builder
	err := writeTable(&b, []row{{"alpha", 12, true}, {"b", 3, false}}, "none", "NAME\tN\tOK", func(r row) []any {
		return []any{r.name, r.n, r.ok}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "NAME   N   OK\nalpha  12  true\nb      3   false\n"
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestWriteTableSaysWhenThereIsNothingOrPrintsTheHeaderAlone(t *testing.T) {
	var b strings.Builder
	if err := writeTable(&b, []int(nil), "no entries", "N", func(int) []any { return nil }); err != nil || b.String() != "no entries\n" {
		t.Fatalf("got %q, %v", b.String(), err)
	}
	b.Reset()
	if err := writeTable(&b, []int(nil), "", "N", func(int) []any { return nil }); err != nil || b.String() != "N\n" {
		t.Fatalf("without an empty line: got %q, %v", b.String(), err)
	}
}

func TestHelpAskedPrintsTheUsageWhereAndWithTheCodeTheRequestCalls(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		asked          bool
		code           int
		stdout, stderr string
	}{
		{nil, true, ExitUsage, "", "usage\n"},
		{[]string{"--help"}, true, ExitOK, "usage\n", ""},
		{[]string{"-h"}, true, ExitOK, "usage\n", ""},
		{[]string{"help"}, true, ExitOK, "usage\n", ""},
		{[]string{"list"}, false, 0, "", ""},
	} {
		var out, errOut strings.Builder
		code, asked := helpAsked(tc.args, "usage\n", &out, &errOut)
		if asked != tc.asked || code != tc.code || out.String() != tc.stdout || errOut.String() != tc.stderr {
			t.Errorf("%q: got %d %v %q %q", tc.args, code, asked, out.String(), errOut.String())
		}
	}
}
