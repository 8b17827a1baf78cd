package desktop_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Settings → Hooks: the folder's project hooks are listed untrusted until the person trusts
// the hash they saw; they then run, and their runs are listed.
func TestHooksViewTrustAndRecentRuns(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, ".loopdesk", "hooks.json"),
		`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo from-the-hook"}]}]}}`)
	s, err := app.NewSession(folder)
	if err != nil {
		t.Fatal(err)
	}
	v, err := app.Hooks(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Trusted || v.SHA256 == "" || len(v.Hooks) != 1 || v.Hooks[0].Source != "project" || v.Hooks[0].Trusted {
		t.Fatalf("before trust: %+v", v)
	}
	if _, err := app.TrustHooks(s.ID, strings.Repeat("0", 64)); err == nil {
		t.Fatal("trusted a hash the person was not shown")
	}
	if v, err = app.TrustHooks(s.ID, v.SHA256); err != nil || !v.Trusted || !v.Hooks[0].Trusted {
		t.Fatalf("after trust: %+v %v", v, err)
	}
	srv.Enqueue(fakeai.Text("ok"))
	runID, err := app.SendMessage(s.ID, "hello")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	if v, _ = app.Hooks(s.ID); len(v.Recent) != 1 || v.Recent[0].Hook.Event != "UserPromptSubmit" || v.Recent[0].Hook.ExitCode != 0 {
		t.Fatalf("recent runs: %+v", v.Recent)
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]["content"].(string)
	if !strings.HasPrefix(last, store.NotePrefix) || !strings.Contains(last, "from-the-hook") {
		t.Fatalf("the trusted hook's context did not reach the model: %q", last)
	}
}

// The "/" palette lists commands and skills; sending a command expands it and records it.
func TestPaletteAndSendCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, ".claude", "commands", "review.md"),
		"---\ndescription: Review a pull request\nargument-hint: [pr-number]\n---\nReview pull request $ARGUMENTS.\n")
	writeFile(t, filepath.Join(folder, ".claude", "skills", "release", "SKILL.md"), "---\nname: release\ndescription: Cut a release.\n---\nTag it.\n")
	s, err := app.NewSession(folder)
	if err != nil {
		t.Fatal(err)
	}
	p, err := app.Palette(s.ID)
	if err != nil || len(p) != 2 || p[0].Kind != "command" || p[0].ArgumentHint != "[pr-number]" || p[1].Kind != "skill" || p[1].Name != "release" {
		t.Fatalf("palette %+v %v", p, err)
	}
	srv.Enqueue(fakeai.Text("reviewed"))
	runID, err := app.SendCommand(s.ID, "/review", "42")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	view, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if u := payload[store.UserPayload](t, view.Rows[0].Chunk); u.Text != "Review pull request 42." || u.Command != "/review" {
		t.Fatalf("user row %+v", u)
	}
	if _, err := app.SendCommand(s.ID, "nope", ""); !errors.Is(err, desktop.ErrInvalidInput) {
		t.Fatalf("unknown command: %v", err)
	}
}

// "Import from Claude Code" brings the person's own Claude Code hooks into the personal file;
// they then apply (personal hooks need no trust).
func TestImportClaudeCodeHooks(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeFile(t, filepath.Join(home, ".claude", "settings.json"),
		`{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`)
	app := newTestApp(t, "")
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := app.ImportClaudeCodeHooks(s.ID)
	if err != nil || got.Added != 1 || len(got.View.Hooks) != 1 || got.View.Hooks[0].Source != "personal" || !got.View.Hooks[0].Trusted {
		t.Fatalf("import: %+v %v", got, err)
	}
}
