package provider

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// BenchmarkStreamTurn measures one streamed turn (60 text deltas and a usage
// chunk) through Client.Stream against an instant fake server, and, in the
// same loop, a bare net/http POST of the same body whose SSE answer is read
// line by line. x_vs_bare is the ratio of the two; the fake server's own
// cost is in both.
func BenchmarkStreamTurn(b *testing.B) {
	srv := startFake(b)
	c, _ := newClient(b, srv.URL(), nil)
	reply := fakeai.Text(strings.Repeat("word ", 60)).WithUsage(100, 60, 0)
	req := Request{Messages: userMsg("benchmark me")}
	body, err := c.Body(req)
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	url := srv.URL() + "/chat/completions"

	bare := func() {
		srv.Reset()
		srv.Enqueue(reply)
		hr, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Authorization", "Bearer "+testKey)
		res, err := hc.Do(hr)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(res.Body)
		n := 0
		for sc.Scan() {
			if bytes.HasPrefix(sc.Bytes(), []byte("data: ")) {
				n++
			}
		}
		res.Body.Close()
		if n < 60 {
			b.Fatalf("bare read %d events", n)
		}
	}
	client := func() {
		srv.Reset()
		srv.Enqueue(reply)
		r := c.Stream(context.Background(), req, Handler{OnText: func(string) {}})
		err := r.Err
		if err != nil || len(r.Text) != 300 {
			b.Fatalf("%v %q", err, r.Text)
		}
	}
	bare()
	client()
	var bareDur, clientDur time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		bare()
		t1 := time.Now()
		client()
		clientDur += time.Since(t1)
		bareDur += t1.Sub(t0)
	}
	b.ReportMetric(float64(clientDur)/float64(bareDur), "x_vs_bare")
	b.ReportMetric(float64(clientDur.Nanoseconds())/float64(b.N), "client_ns/turn")
	b.ReportMetric(float64(bareDur.Nanoseconds())/float64(b.N), "bare_ns/turn")
}
