package desktop

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestErrorCodesAndChannelsMirror fails when the page's copy of the error codes
// (frontend/src/api/types.ts, ErrorCode) or of the Wails event channel names
// (frontend/src/api/backend.ts) drifts from Go's.
func TestErrorCodesAndChannelsMirror(t *testing.T) {
	types, err := os.ReadFile("../../frontend/src/api/types.ts")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)export type ErrorCode =(.*?);`).FindSubmatch(types)
	if m == nil {
		t.Fatal("types.ts declares no ErrorCode union")
	}
	var ts, goCodes []string
	for _, c := range regexp.MustCompile(`'(\w+)'`).FindAllSubmatch(m[1], -1) {
		ts = append(ts, string(c[1]))
	}
	for _, c := range ErrorCodes {
		goCodes = append(goCodes, string(c))
	}
	slices.Sort(ts)
	slices.Sort(goCodes)
	if !slices.Equal(ts, goCodes) {
		t.Errorf("ErrorCode in types.ts = %v, Go has %v", ts, goCodes)
	}

	backend, err := os.ReadFile("../../frontend/src/api/backend.ts")
	if err != nil {
		t.Fatal(err)
	}
	var channels []string
	for _, c := range regexp.MustCompile(`(?m)^export const \w+ = '([\w:-]+)';`).FindAllSubmatch(backend, -1) {
		channels = append(channels, string(c[1]))
	}
	want := slices.Clone(Channels)
	slices.Sort(channels)
	slices.Sort(want)
	if !slices.Equal(channels, want) {
		t.Errorf("channel names in backend.ts = %v, Go emits %v", channels, want)
	}
}
