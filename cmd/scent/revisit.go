package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/revisit"
	"github.com/scent-crawler/scent/sqlite"
)

// revisitFlags are the settings of scent revisit.
type revisitFlags struct {
	ff        fetchFlags
	db        string
	name      string
	olderThan time.Duration
	costs     change.Costs
	workers   int
	quiet     bool
	// sitemapLastMod trusts the sitemaps' lastmod (revisit.Config).
	sitemapLastMod bool
	// now is the clock; nil means time.Now. Tests set it.
	now   func() time.Time
	watch watchFlags
	// outage bounds the wait for a PostgreSQL server lost (--max-outage).
	outage readFlags
}

// newRevisitCmd builds "scent revisit": check the stored pages of a crawl
// again, keep their new versions and log every check.
func newRevisitCmd() *cobra.Command {
	var rf revisitFlags
	cmd := &cobra.Command{
		Use:   "revisit [--db FILE|URL] [--crawl NAME] [--older-than AGE]",
		Short: "Fetch the stored pages of a crawl again and record how much they changed",
		Long: `revisit fetches again every page of a crawl that was fetched successfully
(or only those whose latest check is at least --older-than old), with a
conditional GET built from the latest stored version (If-None-Match from its
ETag, If-Modified-Since from its Last-Modified).

A page whose content changed is stored as a new version (older versions are
kept) with the Improved Edit Distance from the previous version: the counts
of added, copied, dropped, shrunk, replaced and moved words, δ_E and D_IED
for the costs --s and --t. Every check, changed or not, failed or not,
appends a row to the change log (check time, URL, fetched size, update size
δ_E, changed flag). Each check is committed on its own, so Ctrl-C loses
nothing but the checks in flight; run the same command with --older-than to
go on with the pages not yet checked.

With --watch it keeps running as a scheduler: every page is checked again
when it falls due, at the interval of its revisit group (the paper's groups
G14 … G1, 2G1, 4G1 by the weekly change rate estimated from its change log,
or --groups 6) and at the hour its changes suggest, at most --capacity
checks a day. Each check is stored with the page's next due time in one
transaction: after a kill the same command resumes with nothing lost or
checked twice. A page answering 410 is not checked again.

With --db postgres://USER@HOST:PORT/DB the versions, the change log and the
schedule of a crawl kept on PostgreSQL are stored in that database. A
server lost meanwhile (restarted, failed over) is waited for, reconnecting,
for up to --max-outage (30 minutes), as scent crawl does, and said on
standard error; every check is recorded once, even one whose commit got no
answer. A server away longer ends the command with exit status 3, keeping
the checks recorded before: run it again once the server is back (with
--older-than to leave out the pages checked; --watch goes on from its
schedule).`,
		Example: `  scent revisit --db scent.db
  scent revisit --crawl default --older-than 24h --workers 8
  scent revisit --watch --capacity 500 --delay 2s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRevisit(cmd, &rf)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&rf.db, "db", "scent.db", "database of the crawl: a SQLite file, or postgres://USER@HOST:PORT/DB")
	fs.StringVar(&rf.name, "crawl", "", "crawl name (default: the latest crawl)")
	fs.DurationVar(&rf.olderThan, "older-than", 0, "check only pages whose latest check or fetch is at least this old (0: all)")
	fs.BoolVar(&rf.sitemapLastMod, "sitemap-lastmod", true, "trust the <lastmod> of the sitemaps read by the crawl: check a page it dates after its latest check, skip one it dates before")
	fs.Float64Var(&rf.costs.S, "s", 0.75, "IED cost of a copy or a shrink, in [0, 1]")
	fs.Float64Var(&rf.costs.T, "t", 0.75, "IED cost of a move, in [0, 1]")
	fs.IntVar(&rf.workers, "workers", 4, "pages checked at once")
	fs.BoolVar(&rf.quiet, "quiet", false, "no progress line")
	rf.ff.register(fs)
	rf.watch.register(fs)
	rf.outage.register(fs)
	return cmd
}

// runRevisit checks the flags, then revisits the crawl in rf.db once or,
// with --watch, as pages fall due.
func runRevisit(cmd *cobra.Command, rf *revisitFlags) error {
	ctx := cmd.Context()
	if rf.workers <= 0 {
		return fmt.Errorf("--workers must be at least 1, not %d", rf.workers)
	}
	if err := rf.ff.validate(); err != nil {
		return err
	}
	// Checked here, before the store is opened: the revisit would refuse
	// it only once started, after a summary of no pages, and not at all
	// when no progress line is printed (--quiet, a terminal).
	if rf.watch.every < 0 {
		return fmt.Errorf("--progress-every must not be negative, not %s", rf.watch.every)
	}
	// The scheduler's flags say nothing to a single pass: given without
	// --watch (on the command line, or by a config file shared with
	// --watch runs), they are ignored, and said to be. Their values are
	// checked all the same, as --watch checks them: one that a --watch
	// run would refuse is refused now, not found wrong on that run.
	if _, err := rf.watch.schedule(); err != nil {
		return err
	}
	if !rf.watch.on {
		var ignored []string
		for _, name := range []string{"capacity", "groups", "policy", "hours", "until"} {
			if cmd.Flags().Changed(name) {
				ignored = append(ignored, "--"+name)
			}
		}
		if len(ignored) > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "revisit: %s set the scheduler of --watch and are ignored by a single pass over the pages\n", strings.Join(ignored, ", "))
		}
	}
	if err := rf.costs.Validate(); err != nil {
		return fmt.Errorf("revisit: %w", err)
	}
	ro, err := rf.outage.options(cmd)
	if err != nil {
		return err
	}
	f, err := fetch.New(rf.ff.config())
	if err != nil {
		return err
	}
	defer f.Close()
	if postgres.IsURL(rf.db) {
		return runRevisitShared(cmd, rf, postgres.Options{Existing: true, MaxOutage: ro.MaxOutage, Log: ro.Log}, f)
	}
	// A crawl's database, not a new one: opening it to write would give
	// an empty or foreign file scent's tables.
	if r, err := sqlite.OpenReadOnly(ctx, rf.db); err == nil {
		r.Close()
	} else if !errors.Is(err, sqlite.ErrOldSchema) {
		return err
	}
	store, err := sqlite.Open(ctx, rf.db)
	if err != nil {
		return err
	}
	defer store.Close()
	crawl, err := store.Crawl(ctx, rf.name)
	if err != nil {
		return err
	}
	// One process at a time checks a crawl's pages: a second revisit, or
	// the crawl itself running, is refused, naming the process.
	if err := store.LeaseCrawl(ctx, crawl.ID, crawl.Name); err != nil {
		return fmt.Errorf("revisit: %w", err)
	}
	cfg := rf.config(cmd, crawl.ID)
	if rf.watch.on {
		return runWatch(cmd, &rf.watch, rf.quiet, cfg, crawl.Name, store, f)
	}
	return revisitOnce(cmd, cfg, crawl.Name, store, f)
}

// runRevisitShared revisits a crawl kept on PostgreSQL (--db
// postgres://…), once or with --watch, with the store's options o (a
// server lost is waited for up to o.MaxOutage, and said on o.Log). The
// PostgreSQL store keeps no sitemaps, so --sitemap-lastmod finds no dates
// there.
func runRevisitShared(cmd *cobra.Command, rf *revisitFlags, o postgres.Options, f *fetch.Fetcher) error {
	store, err := postgres.Open(cmd.Context(), rf.db, o)
	if err != nil {
		return err
	}
	defer store.Close()
	id, name, err := store.FindCrawl(cmd.Context(), rf.name)
	if err != nil {
		return err
	}
	release, err := store.LeaseRevisit(cmd.Context(), id, name)
	if err != nil {
		return fmt.Errorf("revisit: %w", err)
	}
	defer release()
	if rf.watch.on {
		return runWatch(cmd, &rf.watch, rf.quiet, rf.config(cmd, id), name, store, f)
	}
	return revisitOnce(cmd, rf.config(cmd, id), name, store, f)
}

// config is the revisit of crawl the flags ask for.
func (rf *revisitFlags) config(cmd *cobra.Command, crawl int64) revisit.Config {
	cfg := revisit.Config{Crawl: crawl, OlderThan: rf.olderThan, SitemapLastMod: rf.sitemapLastMod, Costs: rf.costs, Workers: rf.workers, Now: rf.now}
	// A line that rewrites itself on a terminal; a plain, time-stamped
	// line every --progress-every otherwise (a log file, a pipe), as a
	// crawl logs every --log-every.
	switch {
	case rf.quiet:
	case isTerminal(os.Stderr):
		cfg.Progress = cmd.ErrOrStderr()
	default:
		cfg.Progress = &plainLines{w: cmd.ErrOrStderr(), now: time.Now}
		cfg.ProgressEvery = rf.watch.every
	}
	return cfg
}

// revisitOnce checks the due pages of a crawl once and prints the counts.
func revisitOnce(cmd *cobra.Command, cfg revisit.Config, name string, store revisit.Store, f *fetch.Fetcher) error {
	start := time.Now()
	sum, err := revisit.Run(cmd.Context(), cfg, store, f)
	fmt.Fprintf(cmd.OutOrStdout(), "revisit %q: %d pages checked: %d changed, %d unchanged, %d not modified (304), %d failed; %d not due\n",
		name, sum.Checked, sum.Changed, sum.Unchanged, sum.NotModified, sum.Failed, sum.NotDue)
	if errors.Is(err, context.Canceled) {
		return revisitInterrupted(err, cfg.OlderThan, time.Since(start))
	}
	return err
}

// revisitInterrupted is err, the interruption of a revisit that ran for
// took, with how to go on with the pages it did not check: they are the
// ones not checked for longer than took. With --older-than at least
// that, the same command leaves out the pages checked; without it, the
// next run needs one.
func revisitInterrupted(err error, olderThan, took time.Duration) error {
	if olderThan >= took {
		return resumable{err}
	}
	at := took.Truncate(time.Minute) + time.Minute
	return goOn{err, fmt.Sprintf("this run checked pages for %s: to go on with the others, run it again with --older-than %s (or more, if you wait)", took.Round(time.Second), strings.TrimSuffix(at.String(), "0s"))}
}
