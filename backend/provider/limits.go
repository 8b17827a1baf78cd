package provider

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Limits are the rate-limit headers a provider sent with one response, and when: the
// OpenAI-style x-ratelimit-* (limit, remaining and reset of requests and tokens), Anthropic's
// anthropic-ratelimit-*, and retry-after. Headers holds them by their lower-case names, as
// sent; nothing else of the response is kept.
type Limits struct {
	Provider string            `json:"provider"`
	At       time.Time         `json:"at"`
	Headers  map[string]string `json:"headers"`
}

// LimitsOf picks the rate-limit headers out of h; ok is false when there are none.
func LimitsOf(provider string, h http.Header, at time.Time) (Limits, bool) {
	l := Limits{Provider: provider, At: at, Headers: map[string]string{}}
	for k, v := range h {
		name := strings.ToLower(k)
		if len(v) > 0 && (strings.HasPrefix(name, "x-ratelimit-") || strings.HasPrefix(name, "anthropic-ratelimit-") || name == "retry-after") {
			l.Headers[name] = v[0]
		}
	}
	return l, len(l.Headers) > 0
}

// LimitBoard keeps the latest Limits of each provider, for the meters: a client records
// what each response said (Config.OnLimits = board.Record). Safe for concurrent use.
type LimitBoard struct {
	mu sync.Mutex
	m  map[string]Limits
}

// Record keeps l as its provider's latest.
func (b *LimitBoard) Record(l Limits) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]Limits{}
	}
	b.m[l.Provider] = l
}

// Latest is what the provider said last; ok is false when it never sent rate-limit headers.
func (b *LimitBoard) Latest(provider string) (Limits, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.m[provider]
	return l, ok
}

// All is every provider's latest, by provider name.
func (b *LimitBoard) All() []Limits {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Limits, 0, len(b.m))
	for _, l := range b.m {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}
