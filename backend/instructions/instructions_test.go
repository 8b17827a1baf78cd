package instructions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadPersonalFirstAndComposed(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, home, "Answer in English.\n")
	write(t, ws, "Run `make test` before you finish.\n")
	files, err := Load(home, ws)
	if err != nil || len(files) != 2 {
		t.Fatalf("%v %v", files, err)
	}
	if files[0].Scope != ScopePersonal || files[1].Scope != ScopeFolder || files[1].Path != filepath.Join(ws, FileName) {
		t.Fatalf("order or paths: %+v", files)
	}
	// sha256 of "Answer in English.\n"
	if len(files[0].SHA256) != 64 || files[0].SHA256 == files[1].SHA256 {
		t.Fatalf("hashes %q %q", files[0].SHA256, files[1].SHA256)
	}
	p := Compose("BASE", files)
	if !strings.HasPrefix(p, "BASE\n\n") || strings.Index(p, "Answer in English.") > strings.Index(p, "make test") {
		t.Fatalf("composed prompt:\n%s", p)
	}
	// A change is picked up by the next Load.
	write(t, ws, "Use tabs.\n")
	again, _ := Load(home, ws)
	if again[1].SHA256 == files[1].SHA256 || !strings.Contains(Compose("", again), "Use tabs.") {
		t.Fatal("changed file not re-read")
	}
}

func TestMissingFilesAndBigFile(t *testing.T) {
	if files, err := Load(t.TempDir(), t.TempDir()); err != nil || len(files) != 0 {
		t.Fatalf("no files: %v %v", files, err)
	}
	ws := t.TempDir()
	write(t, ws, strings.Repeat("é", MaxBytes)) // 2 bytes each: 128 KiB
	files, err := Load("", ws)
	if err != nil || len(files) != 1 {
		t.Fatal(err)
	}
	f := files[0]
	if !f.Truncated || len(f.Content) > MaxBytes || f.Bytes != 2*MaxBytes || !strings.HasSuffix(f.Content, "é") {
		t.Fatalf("cut: truncated=%v len=%d bytes=%d", f.Truncated, len(f.Content), f.Bytes)
	}
	if p := Compose("B", files); !strings.Contains(p, "Warning: "+f.Path+" is 131072 bytes; only the first 64 KiB were used") {
		t.Fatalf("no visible warning in %q", p[len(p)-200:])
	}
}
