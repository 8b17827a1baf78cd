package desktop_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// A second provider's key typed in Settings is kept like the default key: in a 0600 file of
// its own, never in the database or providers.json, never sent back to the page; a run on
// that provider uses it.
func TestProviderKeyTypedInSettingsStaysInItsOwnFile(t *testing.T) {
	const secret = "sk-second-provider-typed-secret"
	def := startFake(t)
	second := startFake(t, fakeai.WithAPIKey(secret))
	app := newTestApp(t, def.URL())
	entry := config.Provider{Name: "second", Kind: config.KindOpenAI, BaseURL: second.URL(), Models: []string{"m2"}}
	if _, err := app.SetProviderKey("second", secret); !errors.Is(err, desktop.ErrInvalidInput) {
		t.Fatalf("a key for a provider not saved yet: %v", err)
	}
	if _, err := app.SaveProviders([]config.Provider{entry}); err != nil {
		t.Fatal(err)
	}
	v, err := app.SetProviderKey("second", "  "+secret+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Infos) != 2 || !v.Infos[1].Key.Found || v.Infos[1].Key.From != "file" {
		t.Fatalf("the page is not told the key is set: %+v", v.Infos)
	}
	page, _ := json.Marshal(v)
	if bytes.Contains(page, []byte(secret)) {
		t.Fatalf("the key went back to the page: %s", page)
	}
	keyFile := v.Providers[0].APIKeyFile
	fi, err := os.Stat(keyFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %s: %v, mode %v; want 0600", keyFile, err, fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(keyFile)); di.Mode().Perm() != 0o700 {
		t.Fatalf("key folder mode %v; want 0700", di.Mode().Perm())
	}

	s, _ := app.NewSession("")
	if _, err := app.SetSessionModel(s.ID, "second", "m2"); err != nil {
		t.Fatal(err)
	}
	second.Enqueue(fakeai.Text("from the second provider"))
	runID, err := app.SendMessage(s.ID, "hello")
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("a run with the typed key ended %v: %v", end["status"], end["error"])
	}

	for _, p := range []string{app.dbPath, app.dbPath + "-wal", v.Path} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Fatalf("the key is in %s", p)
		}
	}

	// An empty key removes the file and the pointer to it.
	if v, err = app.SetProviderKey("second", ""); err != nil || v.Providers[0].APIKeyFile != "" || v.Infos[1].Key.Found {
		t.Fatalf("after removing the key: %+v, %v", v, err)
	}
	if _, err := os.Stat(keyFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the key file is still there: %v", err)
	}
}
