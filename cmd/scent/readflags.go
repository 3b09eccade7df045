package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
)

// readFlags are the settings of the commands that read a database
// (report, export, search; revisit, which writes too) which matter on
// PostgreSQL only: a SQLite file has no server to lose.
type readFlags struct {
	maxOutage time.Duration
}

func (rf *readFlags) register(fs *pflag.FlagSet) {
	fs.DurationVar(&rf.maxOutage, "max-outage", crawler.DefaultMaxOutage,
		"with --db postgres://…: how long the command waits for a database server it lost (restarted, failed over) before it fails (exit status 3), as scent crawl does")
}

// options returns the reader's settings, its notices of a server lost and
// found again written to the command's standard error.
func (rf *readFlags) options(cmd *cobra.Command) (experiment.ReadOptions, error) {
	if rf.maxOutage <= 0 {
		return experiment.ReadOptions{}, fmt.Errorf("--max-outage must be positive, not %s", rf.maxOutage)
	}
	return experiment.ReadOptions{MaxOutage: rf.maxOutage, Log: cmd.ErrOrStderr()}, nil
}
