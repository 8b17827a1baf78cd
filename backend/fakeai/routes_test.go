package fakeai_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// Two conversations scripted apart get their own replies whatever order their requests
// arrive in; a conversation without a marker takes the shared queue.
func TestEnqueueForRoutesByFirstUserMessage(t *testing.T) {
	srv, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.EnqueueFor("[child-a]", fakeai.Text("from a"))
	srv.EnqueueFor("[child-b]", fakeai.Text("from b"))
	srv.Enqueue(fakeai.Text("shared"))
	ask := func(first, last string) string {
		t.Helper()
		body := `{"model":"m","stream":false,"messages":[{"role":"user","content":"` + first + `"},` +
			`{"role":"assistant","content":"ok"},{"role":"user","content":"` + last + `"}]}`
		resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := ask("do [child-b] now", "x"); !strings.Contains(got, "from b") {
		t.Fatalf("child b got %s", got)
	}
	if got := ask("plain", "[child-a] only in a later message"); !strings.Contains(got, "shared") {
		t.Fatalf("a marker outside the first user message routed the request: %s", got)
	}
	if got := ask("[child-a] go", "x"); !strings.Contains(got, "from a") {
		t.Fatalf("child a got %s", got)
	}
	if got := ask("[child-a] again", "more"); !strings.Contains(got, "You said: more") {
		t.Fatalf("a used-up route should fall back to the echo, got %s", got)
	}
	// The control API routes too.
	resp, err := http.Post(srv.URL()[:len(srv.URL())-3]+"/_fake/enqueue?for=%5Bchild-c%5D", "application/json",
		bytes.NewReader([]byte(`[{"kind":"text","text":"from c"}]`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := ask("[child-c]", "x"); !strings.Contains(got, "from c") {
		t.Fatalf("child c got %s", got)
	}
}

// The Messages API is routed the same way.
func TestEnqueueForRoutesMessagesRequests(t *testing.T) {
	srv, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.Enqueue(fakeai.Text("shared"))
	srv.EnqueueFor("[child]", fakeai.Text("routed"))
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/messages", strings.NewReader(
		`{"model":"m","max_tokens":100,"messages":[{"role":"user","content":[{"type":"text","text":"[child] go"}]}]}`))
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), "routed") {
		t.Fatalf("the Messages request was not routed: %s", b)
	}
}
