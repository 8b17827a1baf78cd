// Command benchjournal prints the bench journal of history at any size as JSON (its
// database, its folder, the ids of the sessions the benches open), building it first when
// the cache holds none of this generator's version (backend/historybench, journal.go):
//
//	benchjournal [-dir build/bench-journal] [-tiny]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/loopdesk/loopdesk/backend/historybench"
)

func main() {
	dir := flag.String("dir", "build/bench-journal", "the folder the built journals are kept in")
	tiny := flag.Bool("tiny", false, "the tiny journal (the same kinds of sessions in a few megabytes)")
	flag.Parse()
	spec := historybench.Full
	if *tiny {
		spec = historybench.Tiny
	}
	j, err := historybench.Cached(context.Background(), *dir, spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchjournal:", err)
		os.Exit(1)
	}
	b, _ := json.MarshalIndent(j, "", "  ")
	fmt.Println(string(b))
}
