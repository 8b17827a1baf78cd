package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

const (
	childFlag    = "LOOPDESK_HIDE_SECRETS_CHILD"
	plantedKey   = "sk-planted-7f3a9c0e1b2d4a6f"
	plantedOther = "other-secret-51c2"
)

// childReport is what the re-executed test binary found.
type childReport struct {
	Returned   map[string]string
	GoEnv      string // os.Getenv after hiding
	Before     string // a child's view of /proc/$PPID/environ before hiding
	Unconfined string // after hiding, a plain child
	Sandboxed  string // after hiding, a child in the sandbox
	Dumpable   int
	Err        string
}

// TestHideSecrets starts this test binary again with a key planted in its
// environment; that process hides the key and asks children, one plain and one
// sandboxed, to print their parent's environment block.
func TestHideSecrets(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHideSecretsChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childFlag+"=1", "OPENAI_API_KEY="+plantedKey,
		"LOOPDESK_OTHER_SECRET="+plantedOther, "LOOPDESK_VISIBLE_MARK=still-here")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	_, line, ok := strings.Cut(string(out), "REPORT:")
	if !ok {
		t.Fatalf("no report from the child:\n%s", out)
	}
	line, _, _ = strings.Cut(line, "\n")
	var r childReport
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if r.Err != "" {
		t.Fatalf("child failed: %s", r.Err)
	}
	if r.Returned["OPENAI_API_KEY"] != plantedKey || r.Returned["LOOPDESK_OTHER_SECRET"] != plantedOther || len(r.Returned) != 2 {
		t.Fatalf("HideSecrets returned %v", r.Returned)
	}
	if r.GoEnv != "" {
		t.Fatalf("os.Getenv still has the key: %q", r.GoEnv)
	}
	// The control: the method the tests use does read the key when nothing hides it.
	if !strings.Contains(r.Before, plantedKey) {
		t.Fatalf("before hiding, the child did not see the key; the test proves nothing: %q", r.Before)
	}
	if !strings.Contains(r.Unconfined, "LOOPDESK_VISIBLE_MARK=still-here") {
		t.Fatalf("the plain child could not read its parent's environment at all: %q", r.Unconfined)
	}
	for name, seen := range map[string]string{"plain child": r.Unconfined, "sandboxed child": r.Sandboxed} {
		if strings.Contains(seen, plantedKey) || strings.Contains(seen, plantedOther) {
			t.Fatalf("the %s read a hidden secret from its parent: %q", name, seen)
		}
	}
	if r.Dumpable != 0 {
		t.Fatalf("the process is still dumpable (%d)", r.Dumpable)
	}
}

func TestHideSecretsChild(t *testing.T) {
	if os.Getenv(childFlag) == "" {
		t.Skip("run by TestHideSecrets in a fresh process")
	}
	var r childReport
	defer func() {
		b, _ := json.Marshal(r)
		fmt.Printf("REPORT:%s\n", b)
	}()
	const readParent = `tr '\0' '\n' < /proc/$PPID/environ`
	var err error
	if r.Before, err = output(exec.Command("bash", "-c", readParent)); err != nil {
		r.Err = err.Error()
		return
	}
	if r.Returned, err = HideSecrets("OPENAI_API_KEY", "LOOPDESK_OTHER_SECRET", "NOT_SET_AT_ALL"); err != nil {
		r.Err = err.Error()
		return
	}
	r.GoEnv = os.Getenv("OPENAI_API_KEY")
	r.Dumpable, _ = unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if r.Unconfined, err = output(exec.Command("bash", "-c", readParent)); err != nil {
		r.Err = err.Error()
		return
	}
	s, err := Detect(context.Background())
	if err != nil {
		r.Err = err.Error()
		return
	}
	cmd := exec.Command("bash", "-c", fmt.Sprintf(`%s; cat /proc/%d/environ; cat /proc/[0-9]*/environ`, readParent, os.Getpid()))
	if err := s.Confine(cmd, Options{Dir: t.TempDir()}); err != nil {
		r.Err = err.Error()
		return
	}
	r.Sandboxed, _ = output(cmd) // reading the app's pid fails inside: it is not there
}

func output(cmd *exec.Cmd) (string, error) {
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.String(), err
}
