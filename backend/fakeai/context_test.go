package fakeai

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestContextLimitRefusesLongRequests(t *testing.T) {
	srv, err := Start(WithContextLimit(10))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.Enqueue(Text("fits"))
	post := func(content string) (int, string) {
		body := `{"model":"m","messages":[{"role":"user","content":"` + content + `"}]}`
		res, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := post(strings.Repeat("x", 100)); code != 400 || !strings.Contains(body, "context_length_exceeded") ||
		!strings.Contains(body, "maximum context length is 10 tokens") {
		t.Fatalf("long request: %d %s", code, body)
	}
	if code, body := post("short"); code != 200 || !strings.Contains(body, "fits") {
		t.Fatalf("short request: %d %s (the refused one must not use the scripted reply)", code, body)
	}
	res, err := http.Post(srv.URL()[:len(srv.URL())-3]+"/_fake/context_limit", "application/json", strings.NewReader(`{"tokens":0}`))
	if err != nil || res.StatusCode != 204 {
		t.Fatalf("set limit: %v %v", res, err)
	}
	res.Body.Close()
	if code, _ := post(strings.Repeat("x", 100)); code != 200 {
		t.Fatalf("limit removed, still refused: %d", code)
	}
}
