package provider

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// seen is what a test server was sent.
type seen struct {
	mu   sync.Mutex
	reqs []*http.Request
	body []string
}

func (s *seen) add(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	s.body = append(s.body, string(b))
}

func (s *seen) all() ([]*http.Request, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...), append([]string(nil), s.body...)
}

// Each wire format's requests carry its own headers, and nothing of the other's: the key in
// the one header that format reads, Loopdesk's User-Agent, a stream asked for by a model call
// and JSON by the models list.
func TestRequestsCarryEachWireFormatsHeaders(t *testing.T) {
	srv := startFake(t, fakeai.WithAPIKey(testKey))
	srv.Enqueue(fakeai.Text("Hi."), fakeai.Text("Hi."))
	oa, _ := newClient(t, srv.URL(), nil)
	if r := oa.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{}); r.Err != nil {
		t.Fatal(r.Err)
	}
	if _, err := oa.ListModels(context.Background()); err != nil {
		t.Fatal(err)
	}
	ant, _ := newAnthropic(t, srv, nil)
	if r := ant.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{}); r.Err != nil {
		t.Fatal(r.Err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	want := []struct {
		path, accept, auth, apiKey, version string
	}{
		{"/v1/chat/completions", "text/event-stream", "Bearer " + testKey, "", ""},
		{"/v1/models", "application/json", "Bearer " + testKey, "", ""},
		{"/v1/messages", "text/event-stream", "", testKey, anthropicVersion},
	}
	for i, w := range want {
		h := reqs[i].Header
		got := []string{reqs[i].Path, h.Get("Accept"), h.Get("Authorization"), h.Get("X-Api-Key"), h.Get("Anthropic-Version")}
		if strings.Join(got, "|") != strings.Join([]string{w.path, w.accept, w.auth, w.apiKey, w.version}, "|") {
			t.Errorf("request %d: path, Accept, Authorization, x-api-key, anthropic-version = %q", i, got)
		}
		if ua := h.Get("User-Agent"); !strings.HasPrefix(ua, "Loopdesk") {
			t.Errorf("request %d: User-Agent %q", i, ua)
		}
	}
	if ct := reqs[0].Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("model call's Content-Type %q", ct)
	}
}

// A server without a key gets no Authorization header at all (not "Bearer ").
func TestNoKeyNoAuthorization(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[{"id":"m"}]}`))
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL+"/v1", func(c *Config) { c.APIKey = "" })
	if _, err := c.ListModels(context.Background()); err != nil {
		t.Fatal(err)
	}
	reqs, _ := s.all()
	if _, ok := reqs[0].Header["Authorization"]; ok {
		t.Fatalf("Authorization sent without a key: %q", reqs[0].Header.Get("Authorization"))
	}
}

// The path is resolved against the base URL as the SDKs resolve it: the base URL's path with
// a slash added, with or without one given.
func TestPathsResolveAgainstTheBaseURL(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[]}`))
	}))
	defer srv.Close()
	for base, want := range map[string]string{
		srv.URL + "/v1":          "/v1/models",
		srv.URL + "/v1/":         "/v1/models",
		srv.URL + "/proxy/a/v1/": "/proxy/a/v1/models",
		srv.URL:                  "/models",
	} {
		c, _ := newClient(t, base, nil)
		if _, err := c.ListModels(context.Background()); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		reqs, _ := s.all()
		if got := reqs[len(reqs)-1].URL.Path; got != want {
			t.Errorf("base %s: asked for %s, want %s", base, got, want)
		}
	}
	c, _ := newClient(t, "ftp://example.com/v1", nil)
	if _, err := c.ListModels(context.Background()); err == nil || !strings.Contains(err.Error(), "want http:// or https://") {
		t.Errorf("ftp base URL: %v", err)
	}
	// A base URL that does not parse is said so, without repeating it (it may hold a password).
	c, _ = newClient(t, "http://user:hunter2@exa mple.com/v1", nil)
	if _, err := c.ListModels(context.Background()); err == nil || !strings.Contains(err.Error(), "the base URL is not a URL") ||
		strings.Contains(err.Error(), "hunter2") {
		t.Errorf("unparsable base URL: %v", err)
	}
}

// A redirect to another origin is not followed: the key, in either header, never reaches a
// server it was not given to, and the person is told why the call failed. A redirect on the
// same origin is followed, with the whole body sent again.
func TestRedirectsKeepTheKeyOnItsOrigin(t *testing.T) {
	var elsewhere seen
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.add(r)
		w.WriteHeader(http.StatusOK)
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()

	oa, _ := newClient(t, redirect.URL+"/v1", func(c *Config) { c.MaxRetries = -1 })
	r := oa.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "redirected to another origin") {
		t.Errorf("openai: %v", r.Err)
	}
	ant, _ := newAnthropic(t, startFake(t), func(c *Config) { c.BaseURL, c.MaxRetries = redirect.URL, -1 })
	r = ant.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "redirected to another origin") {
		t.Errorf("anthropic: %v", r.Err)
	}
	if reqs, _ := elsewhere.all(); len(reqs) != 0 {
		t.Errorf("the other origin was sent %d requests (first: %v)", len(reqs), reqs[0].Header)
	}

	// The same origin: /old answers 308 to /v1/chat/completions on the fake.
	srv := startFake(t, fakeai.WithAPIKey(testKey))
	srv.Enqueue(fakeai.Text("Moved."))
	var moved seen
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/old/") {
			moved.add(r)
			http.Redirect(w, r, "/new/"+strings.TrimPrefix(r.URL.Path, "/old/"), http.StatusPermanentRedirect)
			return
		}
		// /new/... goes on to the fake, body and headers as they came.
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, srv.URL()+"/"+strings.TrimPrefix(r.URL.Path, "/new/v1/"), r.Body)
		req.Header = r.Header
		req.ContentLength = r.ContentLength
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		w.Header().Set("Content-Type", res.Header.Get("Content-Type"))
		w.WriteHeader(res.StatusCode)
		_, _ = io.Copy(w, res.Body)
	}))
	defer front.Close()
	c, _ := newClient(t, front.URL+"/old/v1", nil)
	if r := c.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{}); r.Err != nil || r.Text != "Moved." {
		t.Fatalf("same-origin redirect: %v %q", r.Err, r.Text)
	}
	_, bodies := moved.all()
	reqs := srv.Requests()
	if len(reqs) != 1 || len(bodies) != 1 || string(reqs[0].Body) != bodies[0] {
		t.Errorf("the redirected request's body differs from the first: %d requests", len(reqs))
	}
}
