package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/approvals/approvalstest"
)

func approvalsRun(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := ApprovalsCommand(context.Background(), args, func(string) string { return "" }, &out, &errb)
	return code, out.String(), errb.String()
}

// The report of two recorded sessions with known answers is exactly the golden object (the
// sessions' ids, new each time, read SESSION_A and SESSION_B).
func TestApprovalsReportJSONIsTheGoldenObject(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	a, b, err := approvalstest.Record(context.Background(), path, time.Now().Add(-48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := approvalsRun("report", "--db", path, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := strings.NewReplacer(a, "SESSION_A", b, "SESSION_B").Replace(out)
	golden := filepath.Join("testdata", "approvals_report.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("approvals report --json:\n%s\nwant (testdata/approvals_report.golden, -update rewrites it):\n%s", got, want)
	}

	// --since leaves out what is older; --session keeps one session.
	if code, out, _ := approvalsRun("report", "--db", path, "--json", "--since", "1d"); code != ExitOK || !strings.Contains(out, `"asked": 0`) {
		t.Errorf("--since 1d: exit %d\n%s", code, out)
	}
	if code, out, _ := approvalsRun("report", "--db", path, "--session", b); code != ExitOK || !strings.Contains(out, "You answered 4 calls") {
		t.Errorf("--session B: exit %d\n%s", code, out)
	}
}

func TestApprovalsReportRefusesBadInputClearly(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"report", "--since", "yesterday"}, ExitUsage, `since "yesterday"`},
		{[]string{"list"}, ExitUsage, "the one subcommand is report"},
		{[]string{"report", "--db", filepath.Join(t.TempDir(), "x.db"), "--session", "nope"}, ExitOther, "nope"},
	} {
		code, _, errOut := approvalsRun(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}
