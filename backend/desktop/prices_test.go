package desktop

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/config"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The price table carries cache-read and cache-write prices: saved, read back, and in the
// price a run of the model gets (the CLI through config.Effective, the window through RunSpec).
func TestPricesCarryCacheReadAndWrite(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "loopdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keys := config.Keys{Dir: t.TempDir(), Getenv: func(string) string { return "" }}
	st := SettingsStore{DB: db, Keys: keys, Getenv: func(string) string { return "" }}
	claude := Price{Model: "claude", Price: loopcore.Price{InputPerMTok: 3, OutputPerMTok: 15, CacheReadPerMTok: 0.3, CacheWritePerMTok: 3.75}}
	in := SettingsInput{BaseURL: "http://localhost:8080/v1", Model: "claude", Prices: []Price{claude}}
	bad := in
	bad.Prices = []Price{{Model: "x", Price: loopcore.Price{CacheWritePerMTok: -1}}}
	if _, err := st.Save(ctx, bad); err == nil || !strings.Contains(err.Error(), `the price of "x" cannot be negative`) {
		t.Fatalf("a negative cache price: %v", err)
	}
	saved, err := st.Save(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Prices) != 1 || saved.Prices[0] != claude {
		t.Fatalf("saved prices %+v", saved.Prices)
	}
	want := loopcore.Price{InputPerMTok: 3, OutputPerMTok: 15, CacheReadPerMTok: 0.3, CacheWritePerMTok: 3.75}
	if got := saved.RunSpec("s", "/w", "hi").Limits.Price; got != want {
		t.Fatalf("window run price %+v, want %+v", got, want)
	}
	r, _, err := config.Effective(ctx, db, "db", keys, func(string) string { return "" }, config.Overrides{})
	if err != nil || r.Limits.Price != want {
		t.Fatalf("CLI run price %+v (%v), want %+v", r.Limits.Price, err, want)
	}
	// A run of another model (the session's) takes that model's price.
	r.UseModel("local", config.Overrides{})
	if r.Limits.Price != (loopcore.Price{}) {
		t.Fatalf("an unlisted model costs %+v", r.Limits.Price)
	}
}
