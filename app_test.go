package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/store"
)

func TestCSPHeaderIsStrict(t *testing.T) {
	for _, want := range []string{"script-src 'self'", "object-src 'none'", "frame-src 'none'", "default-src 'self'"} {
		if !strings.Contains(contentSecurityPolicy, want) {
			t.Errorf("CSP lacks %q", want)
		}
	}
	if strings.Contains(contentSecurityPolicy, "unsafe-eval") || strings.Contains(strings.SplitN(contentSecurityPolicy, "style-src", 2)[0], "unsafe-inline") {
		t.Error("CSP allows inline or eval'd scripts")
	}
}

func TestErrorsReachThePageAsCodeAndMessage(t *testing.T) {
	// Wails rejects with new Error(formatError(err)): it must be text the page can parse.
	s, ok := formatError(fmt.Errorf("open session x: %w", store.ErrNotFound)).(string)
	if !ok {
		t.Fatalf("formatError returned %T; want a string", formatError(store.ErrNotFound))
	}
	var e desktop.AppError
	if err := json.Unmarshal([]byte(s), &e); err != nil || e.Code != "not_found" || !strings.Contains(e.Message, "open session x") {
		t.Fatalf("formatError = %s (%v)", s, err)
	}
}
