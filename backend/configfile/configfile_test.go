package configfile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadNamesTheFileAndKeepsAMissingFileRecognisable(t *testing.T) {
	dir := t.TempDir()
	parse := func(b []byte) (map[string]int, error) {
		var m map[string]int
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, DescribeJSONError(b, err)
		}
		return m, nil
	}
	missing := filepath.Join(dir, "none.json")
	if _, err := Read(missing, "test config", parse); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "test config "+missing) {
		t.Fatalf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"a\": 1,\n  oops\n}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Read(bad, "test config", parse)
	if err == nil || !strings.HasPrefix(err.Error(), "test config "+bad+": line 3, column") {
		t.Fatalf("a syntax error should name the file and the line: %v", err)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"a": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if m, err := Read(good, "test config", parse); err != nil || m["a"] != 1 {
		t.Fatalf("got %v, %v", m, err)
	}
}

func TestWritePrivateReplacesTheFileReadableByTheOwnerOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "f.json")
	for _, body := range []string{"first\n", "second\n"} {
		if err := WritePrivate(path, ".f-*.json", []byte(body)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != body {
			t.Fatalf("got %q, %v; want %q", b, err, body)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".f-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestBaseIsXDGConfigHomeElseDotConfig(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/somewhere")
	if b, err := Base(); err != nil || b != "/somewhere" {
		t.Fatalf("got %q, %v", b, err)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/someone")
	if b, err := Base(); err != nil || b != "/home/someone/.config" {
		t.Fatalf("got %q, %v", b, err)
	}
}
