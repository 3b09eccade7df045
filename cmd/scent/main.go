package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/training"
)

// gcPercent is the garbage collector's target (GOGC) unless the
// environment sets one: a crawl's heap holds a steady working set (the
// learner's remembered links, the replay's collection) and garbage that
// turns over with every page, so a smaller headroom than Go's 100 costs
// no measured speed and keeps the peak lower (4,000 pages of a default
// focused crawl with the replay in the process: peak RSS 238 and 246 MB
// against 297 and 307 MB, pages per second within the runs' noise).
const gcPercent = 50

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := stopContext(os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCmd().ExecuteContext(ctx); err != nil {
		if errors.Is(err, context.Canceled) {
			msg := "scent: interrupted"
			var h goOn
			if errors.As(err, new(resumable)) {
				msg += "; run the same command again to resume"
			} else if errors.As(err, &h) {
				msg += "; " + h.how
			}
			fmt.Fprintln(os.Stderr, msg)
			os.Exit(interruptedStatus(ctx))
		}
		fmt.Fprintln(os.Stderr, "scent:", err)
		if errors.Is(err, crawler.ErrNetworkUnreachable) || errors.Is(err, training.ErrUnreachable) || errors.Is(err, postgres.ErrServerLost) {
			os.Exit(exitUnreachable)
		}
		os.Exit(1)
	}
}

// stopContext returns a context canceled by the first of signals, with
// the signal as its cause (a stopSignal), and the function that stops
// listening for them.
func stopContext(signals ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, signals...)
	go func() {
		select {
		case s := <-ch:
			cancel(stopSignal{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// stopSignal is the cause of a context that stopContext canceled: the
// signal received.
type stopSignal struct{ os.Signal }

func (s stopSignal) Error() string { return s.String() + " signal received" }

// interruptedStatus is the exit status of a command interrupted by the
// signal that canceled ctx: 128 and the signal's number, as a shell
// gives a process that a signal killed (130 for SIGINT, 143 for
// SIGTERM); 130 when the signal is not known.
func interruptedStatus(ctx context.Context) int {
	var s stopSignal
	if errors.As(context.Cause(ctx), &s) {
		if n, ok := s.Signal.(syscall.Signal); ok {
			return 128 + int(n)
		}
	}
	return 130
}

// exitUnreachable is the exit status of a crawl that stopped because it
// could reach no server for --max-outage (nor, with --db postgres://…,
// its database server), or whose example pages got no answer.
const exitUnreachable = 3

// resumable marks the interruption of work that the same command resumes
// (a crawl), as opposed to work that starts over.
type resumable struct{ error }

func (r resumable) Unwrap() error { return r.error }

// goOn marks the interruption of work that another command goes on with
// (how says which).
type goOn struct {
	error
	how string
}

func (g goOn) Unwrap() error { return g.error }

// shellJoin quotes args for a POSIX shell.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if i == 0 {
			a = "scent"
		}
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
