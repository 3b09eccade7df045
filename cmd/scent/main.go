// Command scent is a focused web crawler: it learns topics from example
// pages, crawls by the information scent of each link, stores what it
// collects in SQLite and reports precision, recall and harvest rate.
//
// Run "scent help" for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCmd().ExecuteContext(ctx); err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "scent: interrupted; run the same command again to resume")
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "scent:", err)
		os.Exit(1)
	}
}
