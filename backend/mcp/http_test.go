package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTP serves the in-process Go server over streamable HTTP on loopback,
// refusing requests without the bearer token.
func serveHTTP(t *testing.T, token string) string {
	t.Helper()
	srv := newHelperServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestStreamableHTTPWithHeaders(t *testing.T) {
	url := serveHTTP(t, "tok-1")
	t.Setenv("MCP_TEST_TOKEN", "tok-1")
	m := start(t, map[string]ServerConfig{
		"web":    {Type: "http", URL: url, Headers: map[string]string{"Authorization": "Bearer ${MCP_TEST_TOKEN}"}},
		"nokey":  {Type: "http", URL: url},
		"closed": {URL: "http://127.0.0.1:1/mcp"},
	}, Options{InitTimeout: 3 * time.Second})
	settle(t, m, 10*time.Second)
	st, _ := m.Status("web")
	if st.State != StateReady || st.Transport != "http" || !contains(st.Tools, "mcp__web__echo") {
		t.Fatalf("web = %+v", st)
	}
	if res := run(t, context.Background(), m, "mcp__web__echo", `{"message":"over http"}`); res.Content != "Echo: over http" {
		t.Fatalf("echo over http = %+v", res)
	}
	for _, name := range []string{"nokey", "closed"} {
		if st, _ := m.Status(name); st.State != StateFailed || st.Reason == "" {
			t.Errorf("%s = %+v, want failed with a reason", name, st)
		}
	}
	if st, _ := m.Status("nokey"); !strings.Contains(strings.ToLower(st.Reason), "unauthorized") && !strings.Contains(st.Reason, "401") {
		t.Errorf("nokey reason %q should say the server refused", st.Reason)
	}
}
