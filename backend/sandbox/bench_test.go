package sandbox

import (
	"os/exec"
	"sort"
	"testing"
	"time"
)

// BenchmarkStartup is what the sandbox adds to every command: `bash -c true` in the
// sandbox against the same command started bare, one pair per iteration,
// alternating which goes first. Reported as medians over the pairs (so one load
// spike from other processes moves one pair, not the result): box_ms, bare_ms,
// ms_added (the median of per-pair differences) and x_vs_bare. Network off (the
// default, which also creates a network namespace) and on (--share-net) are
// separate sub-benchmarks, both with the Landlock layer (TestMain builds the
// helper); no_network_bwrap_only leaves Landlock out.
func BenchmarkStartup(b *testing.B) {
	s := detect(b)
	bwrapOnly := *s
	bwrapOnly.helper = ""
	dir := folder(b)
	for _, c := range []struct {
		name string
		s    *Sandbox
		o    Options
	}{
		{"no_network", s, Options{Dir: dir}},
		{"network", s, Options{Dir: dir, Network: true}},
		{"no_network_bwrap_only", &bwrapOnly, Options{Dir: dir}},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.s.helper == "" && c.s == s {
				b.Logf("no Landlock layer: %s", s.noLL)
			}
			var box, bare, added, ratio []float64
			for i := 0; b.Loop(); i++ {
				var tb, tx float64
				if i%2 == 0 {
					tx, tb = timeRun(b, c.s, &c.o), timeRun(b, nil, nil)
				} else {
					tb, tx = timeRun(b, nil, nil), timeRun(b, c.s, &c.o)
				}
				box, bare = append(box, tx), append(bare, tb)
				added, ratio = append(added, tx-tb), append(ratio, tx/tb)
			}
			b.ReportMetric(median(box), "box_ms")
			b.ReportMetric(median(bare), "bare_ms")
			b.ReportMetric(median(added), "ms_added")
			b.ReportMetric(median(ratio), "x_vs_bare")
		})
	}
}

// timeRun starts and waits for `bash -c true`, confined when s is not nil, in ms.
func timeRun(b *testing.B, s *Sandbox, o *Options) float64 {
	cmd := exec.Command("bash", "-c", "true")
	if s != nil {
		if err := s.Confine(cmd, *o); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	return float64(time.Since(start).Microseconds()) / 1000
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
