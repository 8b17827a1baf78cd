// Command fakeai runs the scripted OpenAI-compatible server of package fakeai
// as a process, for end-to-end tests and screenshots. See the package
// documentation of backend/fakeai for the control API.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fakeai:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("fakeai", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	delay := fs.Duration("delay", 0, "pause before each streamed delta, e.g. 30ms")
	apiKey := fs.String("api-key", "", "require this API key (Authorization: Bearer KEY)")
	watchStdin := fs.Bool("stdin", true, "exit when stdin reaches end of file")
	contextLimit := fs.Int("context-limit", 0, "refuse requests whose messages exceed this many tokens (4 bytes each), 0: none")
	if err := fs.Parse(args); err != nil {
		return err
	}
	srv, err := fakeai.Start(fakeai.WithAddr(*addr), fakeai.WithDelay(*delay), fakeai.WithAPIKey(*apiKey),
		fakeai.WithContextLimit(*contextLimit))
	if err != nil {
		return err
	}
	defer srv.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *watchStdin {
		go func() {
			// Ends with the process; a read error counts as a closed stdin.
			_, _ = io.Copy(io.Discard, stdin)
			stop()
		}()
	}
	if _, err := fmt.Fprintf(stdout, "FAKEAI_URL=%s\n", srv.URL()); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
