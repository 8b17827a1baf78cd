package stack

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// A probe detects once, whether started, asked, or both from many goroutines at the same
// time, and nothing runs before it is started or asked.
func TestSandboxProbeDetectsOnceWhenFirstNeeded(t *testing.T) {
	var runs atomic.Int32
	release := make(chan struct{})
	want := errors.New("no bwrap here")
	p := &SandboxProbe{done: make(chan struct{}), detect: func() Sandbox {
		runs.Add(1)
		<-release
		return Sandbox{Missing: want}
	}}
	if n := runs.Load(); n != 0 {
		t.Fatalf("detection ran %d times before anyone asked", n)
	}
	p.Start()
	p.Start()
	var wg sync.WaitGroup
	got := make([]Sandbox, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = p.Get() }()
	}
	close(release)
	wg.Wait()
	for i, s := range got {
		if !errors.Is(s.Missing, want) {
			t.Errorf("Get %d: %+v", i, s)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("detection ran %d times, want 1", n)
	}

	// Asked without a Start, a probe starts itself.
	q := &SandboxProbe{done: make(chan struct{}), detect: func() Sandbox { runs.Add(1); return Sandbox{} }}
	q.Get()
	if n := runs.Load(); n != 2 {
		t.Errorf("Get without Start: detection ran %d times in all, want 2", n)
	}
	// A known answer runs nothing.
	if s := KnownSandbox(Sandbox{Missing: want}).Get(); !errors.Is(s.Missing, want) || runs.Load() != 2 {
		t.Errorf("KnownSandbox: %+v, %d runs", s, runs.Load())
	}
}
