package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// runStarted is the run_started line of a --json run.
func runStarted(t *testing.T, stdout string) map[string]any {
	t.Helper()
	for _, l := range runLines(t, stdout) {
		if l["type"] == "run_started" {
			return l
		}
	}
	t.Fatalf("no run_started line:\n%s", stdout)
	return nil
}

// An image given to a text-only model is not sent, and the person is told which and why: on
// stderr and in run_started, as the window's message box says it.
func TestRunImageOnTextOnlyModelIsNamed(t *testing.T) {
	e := runNewEnv(t)
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	if err := os.WriteFile(shot, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(fakeai.Text("I cannot see it."))
	r := e.run(context.Background(), "", "--json", "--model", "deepseek-chat", "--image", shot, "what is this?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "--image "+shot+": model deepseek-chat is text-only") {
		t.Errorf("stderr does not name the dropped image and why: %q", r.stderr)
	}
	dropped, _ := runStarted(t, r.stdout)["images_dropped"].([]any)
	if len(dropped) != 1 {
		t.Fatalf("images_dropped = %v", runStarted(t, r.stdout)["images_dropped"])
	}
	d := dropped[0].(map[string]any)
	if d["path"] != shot || !strings.Contains(d["reason"].(string), "text-only") || !strings.Contains(d["reason"].(string), "not sent") {
		t.Errorf("images_dropped[0] = %v", d)
	}
	if body := string(e.srv.Requests()[0].Body); strings.Contains(body, "image_url") {
		t.Error("the image was sent to a text-only model")
	}

	// A model that sees images is sent it, and nothing is said.
	e.srv.Enqueue(fakeai.Text("A grey square."))
	r = e.run(context.Background(), "", "--json", "--image", shot, "and now?")
	if _, ok := runStarted(t, r.stdout)["images_dropped"]; ok || strings.Contains(r.stderr, "--image") {
		t.Errorf("an image the model sees was reported dropped: %s %s", r.stdout, r.stderr)
	}
}

// --base-url with a provider of providers.json would be ignored: refused, nothing written.
func TestRunBaseURLWithNamedProviderIsRefused(t *testing.T) {
	e := newProvidersEnv(t)
	r := e.run("--provider", "local", "--base-url", "http://127.0.0.1:1/v1", "hi")
	file := filepath.Join(e.cfgDir, "loopdesk", "providers.json")
	want := "--base-url applies to the default provider; local has its own base_url in " + file
	if r.code != runExitUsage || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	if n := len(e.local.Requests()) + len(e.def.Requests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
	if ss, _ := e.open().ListSessions(context.Background()); len(ss) != 0 {
		t.Errorf("a refused run made %d session(s)", len(ss))
	}
	// The default provider takes the flag.
	e.def.Enqueue(fakeai.Text("ok"))
	if r := e.run("--provider", "default", "--base-url", e.def.URL(), "hi"); r.code != 0 {
		t.Fatalf("--provider default --base-url: exit %d %s", r.code, r.stderr)
	}
}

// A thinking budget below what Anthropic accepts is raised to its minimum, and said: on stderr
// and as run_started.thinking_budget, the value the requests carry.
func TestRunThinkingBudgetBelowMinimumIsSaid(t *testing.T) {
	e := newProvidersEnv(t)
	e.writeProviders(`{"providers": [{"name": "claude", "kind": "anthropic", "base_url": "` + strings.TrimSuffix(e.local.URL(), "/v1") +
		`", "api_key_env": "LOCAL_KEY", "models": ["claude-sonnet-4-5"]}]}`)
	e.local.Enqueue(fakeai.Text("thought briefly"))
	r := e.run("--provider", "claude", "--thinking-budget", "500", "--json", "think")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "--thinking-budget 500 is below the minimum of provider claude (anthropic): using 1024") {
		t.Errorf("stderr: %q", r.stderr)
	}
	if got := runStarted(t, r.stdout)["thinking_budget"]; got != float64(1024) {
		t.Errorf("run_started.thinking_budget = %v, want 1024", got)
	}
	var body struct {
		Thinking struct {
			BudgetTokens int `json:"budget_tokens"`
		} `json:"thinking"`
	}
	if err := json.Unmarshal(e.local.Requests()[0].Body, &body); err != nil || body.Thinking.BudgetTokens != 1024 {
		t.Errorf("the request asked for %d thinking tokens (%v)", body.Thinking.BudgetTokens, err)
	}

	// Off is off: no notice, no budget on run_started.
	e.local.Enqueue(fakeai.Text("no thinking"))
	r = e.run("--provider", "claude", "--thinking-budget", "0", "--json", "answer")
	if _, ok := runStarted(t, r.stdout)["thinking_budget"]; ok || strings.Contains(r.stderr, "thinking") {
		t.Errorf("thinking off: %s %s", r.stdout, r.stderr)
	}
}
