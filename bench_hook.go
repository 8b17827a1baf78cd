//go:build bench

package main

// The window bench's hook (scripts/bench-memory.sh), compiled only with the bench tag:
// LOOPDESK_BENCH_GPU overrides the WebKit GPU policy (OnDemand, Always, Never) so both can be
// measured from one build; LOOPDESK_BENCH_JS names a script run in the page once its DOM is
// ready. The script drives the page as a person would (clicks, typing) and emits
// "bench:mark" LABEL [DATA] at each measuring point: the hook then appends one JSON line with
// the RSS and PSS of this process and its descendants (the WebKit processes) to
// LOOPDESK_BENCH_OUT. "bench:done" quits the window. LOOPDESK_BENCH_ARGS (JSON) reaches the
// script as window.__benchArgs. LOOPDESK_BENCH_PPROF (host:port) serves net/http/pprof.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	_ "net/http/pprof" // LOOPDESK_BENCH_PPROF
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

func init() { benchHook = installBench }

func installBench(o *options.App) {
	switch os.Getenv("LOOPDESK_BENCH_GPU") {
	case "OnDemand":
		o.Linux.WebviewGpuPolicy = linux.WebviewGpuPolicyOnDemand
	case "Always":
		o.Linux.WebviewGpuPolicy = linux.WebviewGpuPolicyAlways
	case "Never":
		o.Linux.WebviewGpuPolicy = linux.WebviewGpuPolicyNever
	}
	if addr := os.Getenv("LOOPDESK_BENCH_PPROF"); addr != "" {
		// net/http/pprof on addr: what the Go side allocates while the page is driven.
		go func() { _ = http.ListenAndServe(addr, nil) }()
	}
	script := os.Getenv("LOOPDESK_BENCH_JS")
	if script == "" {
		return
	}
	var once sync.Once
	prev := o.OnDomReady
	o.OnDomReady = func(ctx context.Context) {
		if prev != nil {
			prev(ctx)
		}
		once.Do(func() { startBench(ctx, script) })
	}
}

func startBench(ctx context.Context, script string) {
	out := os.Getenv("LOOPDESK_BENCH_OUT")
	var mu sync.Mutex
	written := 0 // marks handled
	runtime.EventsOn(ctx, "bench:mark", func(data ...any) {
		mu.Lock()
		defer mu.Unlock()
		written++
		rss, pss, procs := treeMemory(os.Getpid())
		line := map[string]any{"label": data[0], "rss_kb": rss, "pss_kb": pss, "procs": len(procs), "by_process": procs,
			"go": goHeap()}
		if len(data) > 1 {
			line["data"] = data[1]
		}
		b, _ := json.Marshal(line)
		if f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintln(f, string(b))
			_ = f.Close()
		}
	})
	// Wails runs each event's handlers on a goroutine of their own, so "bench:done" may
	// overtake the last marks: it carries how many marks were sent, and waits for them.
	runtime.EventsOn(ctx, "bench:done", func(data ...any) {
		want := 0
		if len(data) > 0 {
			if f, ok := data[0].(float64); ok {
				want = int(f)
			}
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			n := written
			mu.Unlock()
			if n >= want {
				break
			}
		}
		runtime.Quit(ctx)
	})
	js, err := os.ReadFile(script)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		runtime.Quit(ctx)
		return
	}
	args := os.Getenv("LOOPDESK_BENCH_ARGS")
	if !json.Valid([]byte(args)) {
		args = "{}"
	}
	runtime.WindowExecJS(ctx, "window.__benchArgs = "+args+";\n"+string(js))
}

// goHeap is what the Go heap holds (kB): in use (live objects and fragmentation), idle but
// still resident, and returned to the OS; it tells a leak from pages the runtime keeps.
func goHeap() map[string]uint64 {
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return map[string]uint64{"heap_inuse_kb": m.HeapInuse >> 10, "heap_idle_kb": m.HeapIdle >> 10,
		"heap_released_kb": m.HeapReleased >> 10, "sys_kb": m.Sys >> 10}
}

// procMemory is one process of the tree: its name and its Rss and Pss in kB, the Pss split
// into anonymous pages (heaps) and file pages (the binary and libraries it has touched).
type procMemory struct {
	Name    string `json:"name"`
	RSS     int    `json:"rss_kb"`
	PSS     int    `json:"pss_kb"`
	PSSAnon int    `json:"pss_anon_kb"`
	PSSFile int    `json:"pss_file_kb"`
}

// treeMemory sums Rss and Pss (kB, /proc/PID/smaps_rollup) over pid and its descendants.
func treeMemory(pid int) (rss, pss int, procs []procMemory) {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		p, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		pp, _ := strconv.Atoi(f[1])
		children[pp] = append(children[pp], p)
	}
	todo := []int{pid}
	for len(todo) > 0 {
		p := todo[0]
		todo = append(todo[1:], children[p]...)
		m, ok := rollup(p)
		if ok {
			name, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p))
			m.Name = strings.TrimSpace(string(name))
			rss, pss = rss+m.RSS, pss+m.PSS
			procs = append(procs, m)
		}
	}
	return rss, pss, procs
}

func rollup(pid int) (m procMemory, ok bool) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return m, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 {
			continue
		}
		v, _ := strconv.Atoi(fs[1])
		switch fs[0] {
		case "Rss:":
			m.RSS = v
		case "Pss:":
			m.PSS = v
		case "Pss_Anon:":
			m.PSSAnon = v
		case "Pss_File:":
			m.PSSFile = v
		}
	}
	return m, true
}
