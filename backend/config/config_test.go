package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestKeyFileIsPrivateAndWinsOverEnv(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "loopdesk")
	env := map[string]string{"OPENAI_API_KEY": "sk-from-env"}
	k := Keys{Dir: dir, Getenv: func(n string) string { return env[n] }}

	key, src, err := k.Key()
	if err != nil || key != "sk-from-env" || src != KeyEnv {
		t.Fatalf("Key() before saving = %q, %q, %v; want the env key", key, src, err)
	}
	if err := k.SetKey("  sk-typed  "); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "api_key"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(dir)
	if di.Mode().Perm() != 0o700 {
		t.Fatalf("config dir mode = %v, want 0700", di.Mode().Perm())
	}
	key, src, err = k.Key()
	if err != nil || key != "sk-typed" || src != KeyFile {
		t.Fatalf("Key() after saving = %q, %q, %v; want the typed key from the file", key, src, err)
	}
	if err := k.SetKey(""); err != nil {
		t.Fatal(err)
	}
	if key, src, _ = k.Key(); key != "sk-from-env" || src != KeyEnv {
		t.Fatalf("after clearing, Key() = %q, %q; want the env key again", key, src)
	}
}

func TestSetKeyRefusesMultiLine(t *testing.T) {
	k := Keys{Dir: t.TempDir(), Getenv: func(string) string { return "" }}
	if err := k.SetKey("a\nb"); err == nil {
		t.Fatal("a key with a newline was accepted")
	}
	if key, src, _ := k.Key(); key != "" || src != KeyNone {
		t.Fatalf("Key() = %q, %q after a refused save; want nothing", key, src)
	}
}
