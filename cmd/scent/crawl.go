package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/scope"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/training"
)

type crawlFlags struct {
	ff                           fetchFlags
	af                           archiveFlags
	mf                           modelFlags
	pf                           policyFlags
	seeds                        string
	model                        string
	db                           string
	name                         string
	strategy                     string
	frontier                     string
	maxPages                     int
	maxFetches                   int
	maxTopic                     int
	maxDepth                     int
	maxPerHost                   int
	maxFrontierHost, maxFrontier int
	maxURL                       int
	scope                        scope.Config
	quiet                        bool
	logEvery                     time.Duration
	retryLater                   int
	maxOutage                    time.Duration
	groupCommit                  time.Duration
	sitemaps                     bool
	metrics                      string
	leaseExpiry                  time.Duration
}

func newCrawlCmd() *cobra.Command {
	var cf crawlFlags
	cmd := &cobra.Command{
		Use:   "crawl --seeds FILE [--db FILE]",
		Short: "Run (or resume) a focused crawl from a seed file",
		Long: `crawl starts at the seed URLs of a seed file and follows the links whose
context the topic model finds on-topic, storing every page and link in the
SQLite database. Without --model it trains the model from the seed file's
example pages first, and the page judge that judges fetched pages
(--page-judge), and keeps them beside the database once the crawl is
opened (DB.model.json and DB.model.page.json, and the pages they learnt
from in DB.model.trained.txt, and once its learner is primed the links
between those pages in DB.model.prior.json; for a --crawl NAME other than default,
DB.NAME.model.json), so a crawl stopped with Ctrl-C resumes with the same
models when the same command runs again; a model kept there for other
topics than the seed file's examples is refused. The
crawl keeps the pages its model and learner learnt from in the database
too, so that scent report counts none of them as found. With --db
postgres://USER@HOST:PORT/DB the crawl is kept on a PostgreSQL server
instead, where any number of crawl processes with the same --crawl name
share it: each URL is fetched once, --max-pages holds for all, the models
are trained once and kept in the database with the links between the
training pages that every process primes its learner from, and the URLs of
a process killed with -9 go to the others after --lease-expiry.

crawl trains with the default model settings. To tune them (--k, --window,
--documents, --backlinks, …) train first, then crawl with the model, whose
link-context window the crawl takes, with the page judge and the learner's
prior that scent train keeps beside it (model.page.json, model.prior.json:
the links between the training pages, which the crawl then need not fetch
again); --threshold replaces any model's:
  scent train --seeds FILE --model model.json --k 3000 --window 20
  scent crawl --seeds FILE --model model.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.pf.apply(cmd.Flags()); err != nil {
				return err
			}
			if cf.pf.preset == "paper" {
				if err := paperModel(&cf.mf.Settings); err != nil {
					return err
				}
			}
			sum, err := runCrawl(cmd, &cf)
			unreachable := errors.Is(err, crawler.ErrNetworkUnreachable)
			if unreachable && sum != nil {
				sum.Finish = "stopped: network unreachable"
			}
			summed := sum != nil && (err == nil || sum.Fetched > 0 || unreachable || errors.Is(err, context.Canceled))
			switch {
			case sum != nil && sum.Finish == "error" && !unreachable:
				// The last writes may be undone: count no pages as kept.
				fmt.Fprintf(cmd.OutOrStdout(), "crawl %q: stopped by an error after %d fetches this run; the database keeps what was committed before it (the same command resumes)\n",
					cf.name, sum.Fetched)
			case summed && postgres.IsURL(cf.db):
				// The crawl's totals, of every process, are told above.
				fmt.Fprintf(cmd.OutOrStdout(), "crawl %q, this process: %d fetches (%d failed); %s; %.1f pages/s, %.1f fetches/s\n",
					cf.name, sum.Fetched, sum.Failed, sum.Finish, sum.PagesPerSec, sum.FetchesPerSec)
			case summed:
				fmt.Fprintf(cmd.OutOrStdout(), "crawl %q: %d fetches this run (%d failed); %d pages fetched in all; %s; %.1f pages/s, %.1f fetches/s\n",
					cf.name, sum.Fetched, sum.Failed, sum.Succeeded, sum.Finish, sum.PagesPerSec, sum.FetchesPerSec)
			}
			if summed {
				if hint := dryHint(cf.strategy, cf.pf.preset, sum); hint != "" {
					fmt.Fprintln(cmd.ErrOrStderr(), hint)
				}
			}
			if errors.Is(err, context.Canceled) {
				return resumable{err}
			}
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cf.seeds, "seeds", "", "seed file: crawl seeds and, to train a model, example pages")
	fs.StringVar(&cf.model, "model", "", "model file from scent train (default: DB.model.json, or DB.NAME.model.json for --crawl NAME, trained from --seeds if missing)")
	fs.StringVar(&cf.db, "db", "scent.db", "database of the crawl: a SQLite file, or postgres://USER@HOST:PORT/DB for a crawl shared by many processes")
	fs.DurationVar(&cf.leaseExpiry, "lease-expiry", 30*time.Second, "with --db postgres://…: how long the URLs a process leased stay its own after it stops renewing them (killed): then the other processes fetch them")
	fs.StringVar(&cf.name, "crawl", "default", "crawl name in the database; an existing unfinished crawl is resumed")
	fs.StringVar(&cf.strategy, "strategy", "link", "link, link+backlinks, page or bfs")
	fs.StringVar(&cf.frontier, "frontier", "stack", "stack (LIFO per topic) or best-first")
	fs.IntVar(&cf.maxPages, "max-pages", 1000, "stop after this many pages fetched successfully (0: no limit)")
	fs.IntVar(&cf.maxFetches, "max-fetches", 0, "stop after this many fetches, failed ones included (0: no limit)")
	fs.IntVar(&cf.maxTopic, "max-pages-per-topic", 0, "stop serving a topic after this many fetches (0: no limit)")
	fs.IntVar(&cf.maxDepth, "max-depth", 0, "deepest link distance from a seed (0: no limit)")
	fs.IntVar(&cf.maxPerHost, "max-per-host", 0, "most fetches of one host's URLs, failed ones included (0: no limit)")
	fs.IntVar(&cf.maxFrontierHost, "max-frontier-per-host", crawler.DefaultMaxFrontierPerHost, "most URLs of one host waiting to be fetched; new ones beyond are dropped and counted (0: no limit)")
	fs.IntVar(&cf.maxFrontier, "max-frontier", crawler.DefaultMaxFrontier, "most URLs waiting to be fetched in all; new ones beyond are dropped and counted (0: no limit)")
	fs.IntVar(&cf.maxURL, "max-url-length", 2048, "longest URL followed")
	fs.StringSliceVar(&cf.scope.Domains, "domains", nil, "fetch only the hosts under these domains (example.org keeps www.example.org; edu keeps every .edu host; default: any host)")
	fs.StringSliceVar(&cf.scope.ExcludeDomains, "exclude-domains", nil, "never fetch the hosts under these domains, even under --domains")
	fs.StringArrayVar(&cf.scope.IncludeURLs, "include-urls", nil, "fetch only the URLs that match this regular expression (Go RE2, matched anywhere in the normalized URL unless anchored); repeated: one of them")
	fs.StringArrayVar(&cf.scope.ExcludeURLs, "exclude-urls", nil, "never fetch the URLs that match this regular expression, e.g. /calendar/ or [?&]sessionid= (repeat for more; a URL already waiting is recorded as a failed page, not fetched)")
	fs.BoolVar(&cf.quiet, "quiet", false, "no progress line")
	fs.DurationVar(&cf.logEvery, "log-every", 10*time.Second, "when stderr is not a terminal, a plain progress line this often (0: none)")
	fs.IntVar(&cf.retryLater, "retry-later", 4, "times a page that failed for a transient reason (no answer, timeout, 5xx, 429) is fetched again later, after its host waited (0: none)")
	fs.DurationVar(&cf.groupCommit, "group-commit", crawler.DefaultGroupCommit, "with a SQLite store: keep the crawl's writes in one transaction committed this often (a crash loses at most this much work, fetched again on resume; 0: a transaction per batch of results)")
	fs.DurationVar(&cf.maxOutage, "max-outage", crawler.DefaultMaxOutage, "how long a crawl that reaches no server waits for the network before it stops (exit status 3); with --db postgres://…, also how long it waits for a database server it lost")
	fs.StringVar(&cf.metrics, "metrics-addr", "", "serve Prometheus metrics of the crawl at this address (e.g. 127.0.0.1:9090, path /metrics)")
	fs.BoolVar(&cf.sitemaps, "sitemaps", true, "read each site's sitemaps (robots.txt Sitemap: lines, /sitemap.xml) at its first fetch that does not fail and push the URLs they list, scored by their URL's words")
	cf.pf.register(fs, false)
	cf.ff.register(fs)
	cf.mf.registerCrawl(fs)
	cf.af.register(fs)
	setFlagGroup(fs, "input", "seeds", "model", "threshold", "page-judge", "db", "crawl", "lease-expiry", "group-commit")
	setFlagGroup(fs, "budget", "max-pages", "max-fetches", "max-pages-per-topic", "max-depth", "max-per-host",
		"max-frontier-per-host", "max-frontier", "max-url-length", "domains", "exclude-domains", "include-urls", "exclude-urls")
	setFlagGroup(fs, "politeness", "retry-later", "max-outage", "sitemaps")
	setFlagGroup(fs, "output", "quiet", "log-every", "metrics-addr")
	setFlagGroup(fs, "research", "strategy", "frontier")
	return cmd
}

// dryHint says why a crawl that follows only on-topic links ran out of
// them before its budget: the paper's crawler (--preset paper) and the
// page strategy stop when their stacks run dry, which a user of the
// default crawler does not expect. It is empty for any other crawl.
func dryHint(strategy, preset string, sum *crawler.Summary) string {
	if sum.Finish != "frontier empty" {
		return ""
	}
	relevant := 0
	for _, n := range sum.Relevant {
		relevant += n
	}
	switch {
	case preset == "paper":
		return fmt.Sprintf("the paper's crawler follows only the links it scores on-topic, and none was left (%d of this run's pages on-topic); the default crawler follows every link, the most promising first", relevant)
	case strategy == string(crawler.StrategyPage):
		return fmt.Sprintf("--strategy page follows only the links of pages it finds on-topic, and none was left (%d of this run's pages on-topic); the default, --strategy link, follows every link, the most promising first", relevant)
	}
	return ""
}

func runCrawl(cmd *cobra.Command, cf *crawlFlags) (*crawler.Summary, error) {
	ctx := cmd.Context()
	if err := cf.validate(); err != nil {
		return nil, err
	}
	// Leases matter only to a crawl that processes share on PostgreSQL:
	// --lease-expiry given with a SQLite database (on the command line,
	// or by a config file shared with PostgreSQL runs) is ignored, and
	// said to be.
	if !postgres.IsURL(cf.db) && cmd.Flags().Changed("lease-expiry") {
		fmt.Fprintln(cmd.ErrOrStderr(), "crawl: --lease-expiry sets the leases of a crawl shared on PostgreSQL (--db postgres://…) and is ignored with a SQLite database")
	}
	// And the other way round: the PostgreSQL store commits each batch
	// of results in a transaction of its own.
	if postgres.IsURL(cf.db) && cmd.Flags().Changed("group-commit") {
		fmt.Fprintln(cmd.ErrOrStderr(), "crawl: --group-commit groups the writes of a SQLite database and is ignored with PostgreSQL, which commits each batch of results on its own")
	}
	// The metrics are served now, not once the model is trained.
	ms, err := startMetrics(cf.metrics, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	defer ms.Close()
	// A database of a newer scent, or of another program, is refused
	// now, not when the store is opened after the model is trained.
	if !postgres.IsURL(cf.db) {
		if err := sqlite.CheckExisting(ctx, cf.db); err != nil {
			return nil, err
		}
	}
	strategy, err := crawler.ParseStrategy(cf.strategy)
	if err != nil {
		return nil, err
	}
	seeds, err := training.LoadSeeds(cf.seeds)
	if err != nil {
		return nil, err
	}
	if len(seeds.Crawl) == 0 {
		return nil, fmt.Errorf("seed file %s has no crawl seeds (lines \"seed URL\")", cf.seeds)
	}
	rules, err := crawlScope(cf.scope)
	if err != nil {
		return nil, err
	}
	// A seed is fetched whatever the scope, which bounds the links
	// followed from it; one out of the scope may be a mistake in either.
	for _, u := range seeds.Crawl {
		if err := rules.Check(u); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "crawl: seed %s is out of the crawl's scope (%v): a seed is fetched whatever the scope, but only its links into the scope are followed\n", u, err)
		}
	}
	cfg := crawler.Config{
		Name: cf.name, Strategy: strategy, Frontier: crawler.Frontier(cf.frontier), Workers: cf.pf.workers,
		MaxPages: cf.maxPages, MaxFetches: cf.maxFetches, MaxPagesPerTopic: cf.maxTopic, MaxDepth: cf.maxDepth, MaxPerHost: cf.maxPerHost,
		MaxURLLength: cf.maxURL, Segment: cf.mf.Segment(), Tunnel: cf.pf.tunnel, Promote: cf.pf.promote, Sections: cf.pf.sections, Lockstep: cf.pf.lockstep, Overlap: cf.pf.overlap, Speculate: cf.pf.speculate, Survey: cf.pf.survey,
		Sitemaps: cf.sitemaps, MaxFrontierPerHost: noLimit(cf.maxFrontierHost), MaxFrontier: noLimit(cf.maxFrontier),
	}
	if !rules.IsZero() {
		cfg.Scope = rules.Check
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	fcfg := cf.ff.config()
	fcfg.KeepRaw = cf.af.raw || cf.af.dir != ""
	if err := fcfg.Validate(); err != nil {
		return nil, err
	}
	f, err := fetch.New(fcfg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The model's training and the learner's prior read the same example
	// pages: each is fetched once.
	examples := experiment.NewFetchCache(f)
	defer examples.Release()

	// A database URL selects the PostgreSQL store, shared by every
	// process of the crawl; a file path the embedded SQLite store.
	pg, err := openShared(cmd, cf, &fcfg)
	if err != nil {
		return nil, err
	}
	if pg != nil {
		defer pg.Close()
	}
	cm, err := crawlScorer(cmd, cf, pg, seeds, strategy, examples)
	if err != nil {
		return nil, err
	}
	modelPath, scorer := cm.path, cm.scorer
	cfg.Learnt = cm.learnt // kept with the crawl: its report counts none of them as found
	cfg.Opened = func(st crawler.CrawlState) error {
		if st.Resumed {
			fmt.Fprintln(cmd.ErrOrStderr(), resumeLine(cf.name, st, cfg.Learner != nil))
		}
		if cm.save != nil {
			return cm.save()
		}
		return nil
	}
	if cm.links != nil {
		cfg.Segment = cm.links.Segment() // link contexts as the model learnt them
	}

	var (
		store   crawler.Store
		dropped func(ctx context.Context, crawl int64) (sqlite.Dropped, error)
	)
	if pg != nil {
		store, cfg.URLs, cfg.Shared = pg, pg, pg
		dropped = func(ctx context.Context, crawl int64) (sqlite.Dropped, error) {
			d, err := pg.FrontierDropped(ctx, crawl)
			return sqlite.Dropped(d), err
		}
	} else {
		sq, err := sqlite.Open(ctx, cf.db)
		if err != nil {
			return nil, err
		}
		defer sq.Close()
		store, cfg.URLs, dropped = sq, sq, sq.FrontierDropped
	}
	if cf.pf.siteNorm {
		// A resumed crawl goes on with the rules it measured.
		if cfg.SiteNorm, err = storedNormRules(ctx, store.(*sqlite.Store), cf.name); err != nil {
			return nil, err
		}
	}
	crawlProgress(&cfg, cmd.ErrOrStderr(), cf.quiet, cf.logEvery)
	cfg.RetryLater, cfg.MaxOutage, cfg.Log = retryLater(cf.retryLater), cf.maxOutage, cmd.ErrOrStderr()
	cfg.GroupCommit = cf.groupCommit
	if cf.groupCommit == 0 {
		cfg.GroupCommit = -1
	}
	// The metrics see the store itself (it counts duplicates); the
	// archive writes each batch before passing it on.
	cs := ms.wrap(store)
	cs, closeWARC, err := archiveStore(ctx, &cf.af, cf.name, fcfg, cs, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	defer closeWARC()
	if err := crawlLearning(&cfg, &cf.pf, strategy, seeds, cm, examples, cmd.ErrOrStderr()); err != nil {
		return nil, err
	}
	c, err := crawler.New(cfg, cs, f, scorer)
	if err != nil {
		return nil, err
	}
	extra := map[string]any{"seeds": cf.seeds, "model": modelPath,
		"delay": cf.ff.delay.String(), "host_parallelism": cf.ff.hostPar, "started": time.Now().UTC().Format(time.RFC3339)}
	if !rules.IsZero() {
		extra["scope"] = cf.scope // as given: a pattern may hold commas
	}
	settings := experiment.RecordedSettings(cfg, extra)
	sum, err := c.Run(ctx, seeds.Crawl, settings)
	if pg != nil && sum.Crawl != 0 {
		if p, perr := pg.CrawlProgress(context.WithoutCancel(ctx), sum.Crawl); perr == nil {
			procs := "processes"
			if p.Processes == 1 {
				procs = "process"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "crawl %q in all: %d fetches (%d pages), %d by this process; %d %s at work on it now; %d URLs waiting, %d leased\n",
				cf.name, p.Fetched, p.Succeeded, p.Mine, p.Processes, procs, p.Waiting, p.Leased)
		}
	}
	if d, derr := dropped(context.WithoutCancel(ctx), sum.Crawl); derr == nil && d.URLs > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "frontier full: %d new URLs of %d hosts were not queued (most: %s, %d; --max-frontier-per-host %d, --max-frontier %d)\n",
			d.URLs, d.Hosts, d.Top, d.TopURLs, cf.maxFrontierHost, cf.maxFrontier)
	}
	return &sum, err
}

// noLimit maps a flag's "0: no limit" to a crawler.Config bound, where 0
// is the default and a negative value no limit.
func noLimit(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// resumeLine tells what a resumed crawl goes on from: its pages, the
// fetches in flight when it stopped, which it fetches again, and whether
// its learner's state was restored; or, for a process joining others
// that run the crawl (a shared store), that it joins them.
func resumeLine(name string, st crawler.CrawlState, learns bool) string {
	if st.Others > 0 {
		// Nothing stopped: this process joins those running the crawl.
		return fmt.Sprintf("joining crawl %q, run by %d other process(es): %d pages fetched so far (%d fetches)", name, st.Others, st.Succeeded, st.Fetched)
	}
	line := fmt.Sprintf("resuming crawl %q: %d pages fetched before (%d fetches)", name, st.Succeeded, st.Fetched)
	if st.Requeue > 0 {
		line += fmt.Sprintf("; %d fetches in flight when it stopped are made again", st.Requeue)
	}
	switch {
	case !learns:
	case st.Learner != nil:
		line += fmt.Sprintf("; the learner goes on from its saved state (%d KB)", (len(st.Learner)+1023)/1024)
	default:
		line += "; the learner starts anew (the crawl stopped before its first save)"
	}
	return line
}
