package stack_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Each run's model calls go to the provider its spec names, and its turns and run row say so.
func TestModelsSendEachRunToItsProvider(t *testing.T) {
	def, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(def.Close)
	local, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(local.Close)
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "loopdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ps := config.Providers{
		Default: config.DefaultEndpoint(def.URL(), "m-default", "k", config.KeyOrigin{From: "none"}),
		File: config.ProvidersFile{Providers: []config.Provider{
			{Name: "local", Kind: config.KindOpenAI, BaseURL: local.URL(), Models: []string{"m-local"}}}},
	}
	var budgets []int // the thinking budget each client was made with
	models := stack.Models{
		Providers: func(context.Context) (config.Providers, error) { return ps, nil },
		Configure: func(c *provider.Config) {
			c.MaxRetries, c.RequestTimeout = -1, 20*time.Second
			budgets = append(budgets, c.ThinkingBudget)
		},
	}
	st, err := stack.New(stack.Config{DB: db, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "t", Workspace: dir, Model: "m-local", Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(providerName, model string) core.Result {
		t.Helper()
		budget := 0
		if providerName == "local" {
			budget = 2048
		}
		id, err := st.Runner.Start(ctx, loop.RunSpec{SessionID: s.ID, Prompt: "hi", Model: model, Provider: providerName,
			ThinkingBudget: budget, Mode: tools.ModeAuto})
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.Runner.Wait(ctx, id)
		if err != nil || res.Status != core.StopCompleted {
			t.Fatalf("run on %s: %+v %v", providerName, res, err)
		}
		return res
	}
	local.Enqueue(fakeai.Text("from local"))
	run("local", "m-local")
	def.Enqueue(fakeai.Text("from default"))
	run("", "m-default")
	if len(budgets) != 2 || budgets[0] != 2048 || budgets[1] != 0 {
		t.Fatalf("thinking budgets the clients were made with: %v, want the runs' [2048 0]", budgets)
	}
	if len(local.Requests()) != 1 || len(def.Requests()) != 1 {
		t.Fatalf("requests: local %d, default %d; want 1 each", len(local.Requests()), len(def.Requests()))
	}
	var body struct{ Model string }
	if err := json.Unmarshal(local.Requests()[0].Body, &body); err != nil || body.Model != "m-local" {
		t.Fatalf("local request model = %q %v", body.Model, err)
	}

	rows, err := db.Chunks(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var origins []store.Origin
	for _, r := range rows {
		var p store.AssistantPayload
		if r.Kind == store.KindAssistant && json.Unmarshal(r.Payload, &p) == nil && p.Origin != nil {
			origins = append(origins, *p.Origin)
		}
	}
	want := []store.Origin{{Provider: "local", Kind: "openai", Model: "m-local"}, {Provider: "default", Kind: "openai", Model: "m-default"}}
	if len(origins) != 2 || origins[0] != want[0] || origins[1] != want[1] {
		t.Fatalf("origins = %+v, want %+v", origins, want)
	}
	runs, err := db.ListRuns(ctx, s.ID)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	byProvider := map[string]string{}
	for _, r := range runs {
		byProvider[r.Provider] = r.Model
	}
	if byProvider["local"] != "m-local" || byProvider["default"] != "m-default" {
		t.Fatalf("run rows: %+v", runs)
	}

	// An unknown provider refuses the run before anything is written.
	_, err = st.Runner.Start(ctx, loop.RunSpec{SessionID: s.ID, Prompt: "hi", Model: "x", Provider: "gone", Mode: tools.ModeAuto})
	if !errors.Is(err, config.ErrUnknownProvider) {
		t.Fatalf("unknown provider: %v", err)
	}
	if runs, _ := db.ListRuns(ctx, s.ID); len(runs) != 2 {
		t.Fatalf("a refused run left a row: %d runs", len(runs))
	}
}
