// Package configfile holds what the person's configuration files share, whichever package
// reads them (config's providers.json, mcp's mcp.json): the folder they live in, reading one
// with errors that name the file and the line, and replacing one without a half-written state.
// It imports nothing of Loopdesk, so that any package may use it.
package configfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Base is $XDG_CONFIG_HOME, else ~/.config: the folder that holds Loopdesk's own ("loopdesk").
// Its error is the home folder's, for the caller to say what it was looking for.
func Base() (string, error) {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config"), nil
}

// Read reads the file at path and parses it. Every error names the file, as "<what> <path>:
// ...": a missing file's wraps fs.ErrNotExist.
func Read[T any](path, what string, parse func([]byte) (T, error)) (T, error) {
	var zero T
	data, err := os.ReadFile(path)
	if err != nil {
		return zero, fmt.Errorf("%s %s: %w", what, path, err)
	}
	v, err := parse(data)
	if err != nil {
		return zero, fmt.Errorf("%s %s: %w", what, path, err)
	}
	return v, nil
}

// DescribeJSONError adds the line and column to a syntax error, which encoding/json reports
// only as a byte offset, and names the field of a type error.
func DescribeJSONError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:se.Offset], []byte("\n"))
		col := int(se.Offset) - bytes.LastIndexByte(data[:se.Offset], '\n') - 1
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %q: %s where %s was expected", te.Field, te.Value, te.Type)
	}
	return err
}

// WritePrivate replaces path with data through a 0600 temporary file (named by pattern, as
// os.CreateTemp takes it) renamed over it, the folder made 0700 when missing: files that may
// hold tokens, never seen half-written.
func WritePrivate(path, pattern string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // a no-op after the rename
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
