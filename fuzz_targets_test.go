package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every fuzz target is one `make fuzz` runs: a target left out of FUZZ_TARGETS would only
// ever replay its corpus, never look for new faults.
func TestMakeFuzzRunsEveryFuzzTarget(t *testing.T) {
	decl := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
	var found []string
	err := filepath.WalkDir("backend", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkg := strings.TrimPrefix(filepath.ToSlash(filepath.Dir(path)), "backend/")
		for _, m := range decl.FindAllSubmatch(b, -1) {
			found = append(found, pkg+":"+string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^FUZZ_TARGETS \?=((?:.*\\\n)*.*)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no FUZZ_TARGETS")
	}
	listed := strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " "))
	slices.Sort(found)
	slices.Sort(listed)
	if len(found) == 0 || !slices.Equal(found, listed) {
		t.Fatalf("the fuzz targets are\n%s\nbut the Makefile's FUZZ_TARGETS lists\n%s", strings.Join(found, "\n"), strings.Join(listed, "\n"))
	}
}
