package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/training"
)

type crawlFlags struct {
	ff                           fetchFlags
	af                           archiveFlags
	mf                           modelFlags
	seeds                        string
	model                        string
	db                           string
	name                         string
	strategy                     string
	frontier                     string
	workers                      int
	maxPages                     int
	maxFetches                   int
	maxTopic                     int
	maxDepth                     int
	maxPerHost                   int
	maxFrontierHost, maxFrontier int
	maxURL                       int
	quiet                        bool
	logEvery                     time.Duration
	retryLater                   int
	maxOutage                    time.Duration
	tunnel                       bool
	promote                      bool
	sections                     bool
	lockstep                     bool
	sitemaps                     bool
	siteNorm                     bool
	metrics                      string
	learn                        bool
	skipEx                       bool
	reward                       float64
	gamma                        float64
	preset                       string
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
example pages first and keeps it beside the database (DB.model.json), so a
crawl stopped with Ctrl-C resumes with the same model when the same command
runs again. With --db postgres://USER@HOST:PORT/DB the crawl is kept on a
PostgreSQL server instead, where any number of crawl processes with the same
--crawl name share it: each URL is fetched once, --max-pages holds for all,
the model is trained once and kept in the database, and the URLs of a
process killed with -9 go to the others after --lease-expiry.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := applyPreset(cmd.Flags(), cf.preset); err != nil {
				return err
			}
			if cf.learn && (cf.tunnel || cf.promote) {
				return errors.New("--tunnel and --promote steer the paper's stacks, but the link learner (on by default) keeps every link on them: add --learn=false or --preset paper")
			}
			sum, err := runCrawl(cmd, &cf)
			unreachable := errors.Is(err, crawler.ErrNetworkUnreachable)
			if unreachable && sum != nil {
				sum.Finish = "stopped: network unreachable"
			}
			if sum != nil && (err == nil || sum.Fetched > 0 || unreachable || errors.Is(err, context.Canceled)) {
				fmt.Fprintf(cmd.OutOrStdout(), "crawl %q: %d fetches this run (%d failed); %d pages fetched in all; %s; %.1f pages/s, %.1f fetches/s\n",
					cf.name, sum.Fetched, sum.Failed, sum.Succeeded, sum.Finish, sum.PagesPerSec, sum.FetchesPerSec)
			}
			if errors.Is(err, context.Canceled) {
				return resumable{err}
			}
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cf.seeds, "seeds", "", "seed file: crawl seeds and, to train a model, example pages")
	fs.StringVar(&cf.model, "model", "", "model file from scent train (default: DB.model.json, trained from --seeds if missing)")
	fs.StringVar(&cf.db, "db", "scent.db", "database of the crawl: a SQLite file, or postgres://USER@HOST:PORT/DB for a crawl shared by many processes")
	fs.DurationVar(&cf.leaseExpiry, "lease-expiry", 30*time.Second, "with --db postgres://…: how long the URLs a process leased stay its own after it stops renewing them (killed): then the other processes fetch them")
	fs.StringVar(&cf.name, "crawl", "default", "crawl name in the database; an existing unfinished crawl is resumed")
	fs.StringVar(&cf.strategy, "strategy", "link", "link, link+backlinks, page or bfs")
	fs.StringVar(&cf.frontier, "frontier", "stack", "stack (LIFO per topic) or best-first")
	fs.IntVar(&cf.workers, "workers", 16, "pages fetched at once")
	fs.IntVar(&cf.maxPages, "max-pages", 1000, "stop after this many pages fetched successfully (0: no limit)")
	fs.IntVar(&cf.maxFetches, "max-fetches", 0, "stop after this many fetches, failed ones included (0: no limit)")
	fs.IntVar(&cf.maxTopic, "max-pages-per-topic", 0, "stop serving a topic after this many fetches (0: no limit)")
	fs.IntVar(&cf.maxDepth, "max-depth", 0, "deepest link distance from a seed (0: no limit)")
	fs.IntVar(&cf.maxPerHost, "max-per-host", 0, "most pages from one host (0: no limit)")
	fs.IntVar(&cf.maxFrontierHost, "max-frontier-per-host", crawler.DefaultMaxFrontierPerHost, "most URLs of one host waiting to be fetched; new ones beyond are dropped and counted (0: no limit)")
	fs.IntVar(&cf.maxFrontier, "max-frontier", crawler.DefaultMaxFrontier, "most URLs waiting to be fetched in all; new ones beyond are dropped and counted (0: no limit)")
	fs.IntVar(&cf.maxURL, "max-url-length", 2048, "longest URL followed")
	fs.BoolVar(&cf.quiet, "quiet", false, "no progress line")
	fs.DurationVar(&cf.logEvery, "log-every", 10*time.Second, "when stderr is not a terminal, a plain progress line this often (0: none)")
	fs.IntVar(&cf.retryLater, "retry-later", 4, "times a page that failed for a transient reason (no answer, timeout, 5xx, 429) is fetched again later, after its host waited (0: none)")
	fs.DurationVar(&cf.maxOutage, "max-outage", 30*time.Minute, "how long a crawl that reaches no server waits for the network before it stops (exit status 3)")
	fs.BoolVar(&cf.tunnel, "tunnel", false, "when a topic's stack runs empty, go on from its off-topic links, shallowest first")
	fs.BoolVar(&cf.lockstep, "lockstep", false, "fetch in rounds of --workers pages, each committed in order before the next: the crawl repeats exactly whatever the timing, but each round waits for its slowest fetch")
	fs.BoolVar(&cf.sections, "sections", true, "treat an on-topic page as a compound document: links into its directory (/cs100/ for /cs100/, /cs100/index.html or /cs100/cs100.html; /x/cs100/ for /x/cs100.html) wait until the stack (and with --tunnel the reserve) is spent, or are dropped")
	fs.BoolVar(&cf.learn, "learn", true, "learn the value of links from the crawl's own pages and serve every link best first by it")
	fs.Float64Var(&cf.reward, "learn-reward", 0, "with --learn: the page score at which a fetched page rewards the links that led to it (0: where the cross-validated page F1 of the examples is best when the model is trained here, else 0.5)")
	fs.Float64Var(&cf.gamma, "learn-gamma", learn.DefaultGamma, "with --learn: the weight of a link's value that comes from the pages beyond its target")
	fs.BoolVar(&cf.skipEx, "skip-examples", true, "never fetch the seed file's example pages (they are in hand)")
	fs.StringVar(&cf.preset, "preset", "", `"paper": the paper's crawler (no learner, no sections, examples fetched like any page), for the settings not given`)
	fs.StringVar(&cf.metrics, "metrics-addr", "", "serve Prometheus metrics of the crawl at this address (e.g. 127.0.0.1:9090, path /metrics)")
	fs.BoolVar(&cf.sitemaps, "sitemaps", true, "read each site's sitemaps (robots.txt Sitemap: lines, /sitemap.xml) at its first fetch and push the URLs they list, scored by their URL's words")
	fs.BoolVar(&cf.siteNorm, "site-norm", false, "site-based URL normalization: measure which extended normalizations (EN1–EN6) each host tolerates, within 5 % of the fetches, and apply those it adopts to the URLs pushed (scent normalize-eval shows them)")
	fs.BoolVar(&cf.promote, "promote", false, "with --tunnel: once most pages fetched through a page's links are on-topic, move its other links from the reserve to the stack")
	cf.ff.register(fs)
	cf.mf.register(fs)
	cf.af.register(fs)
	return cmd
}

func runCrawl(cmd *cobra.Command, cf *crawlFlags) (*crawler.Summary, error) {
	ctx := cmd.Context()
	if err := cf.validate(); err != nil {
		return nil, err
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
	cfg := crawler.Config{
		Name: cf.name, Strategy: strategy, Frontier: crawler.Frontier(cf.frontier), Workers: cf.workers,
		MaxPages: cf.maxPages, MaxFetches: cf.maxFetches, MaxPagesPerTopic: cf.maxTopic, MaxDepth: cf.maxDepth, MaxPerHost: cf.maxPerHost,
		MaxURLLength: cf.maxURL, Segment: cf.mf.segment(), Tunnel: cf.tunnel, Promote: cf.promote, Sections: cf.sections, Lockstep: cf.lockstep,
		Sitemaps: cf.sitemaps, MaxFrontierPerHost: noLimit(cf.maxFrontierHost), MaxFrontier: noLimit(cf.maxFrontier),
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	fcfg := cf.ff.config()
	fcfg.KeepRaw = cf.af.raw || cf.af.dir != ""
	if err := fcfg.Validate(); err != nil {
		return nil, err
	}

	// A database URL selects the PostgreSQL store, shared by every
	// process of the crawl; a file path the embedded SQLite store.
	var pg *postgres.Store
	if postgres.IsURL(cf.db) {
		if cf.siteNorm {
			return nil, errors.New("--site-norm keeps its measurements in SQLite only; drop it with --db postgres://…")
		}
		if cf.af.raw && cmd.Flags().Changed("raw") {
			return nil, errors.New("--raw: the PostgreSQL store keeps no raw responses; use --warc-dir to keep them in WARC files")
		}
		cf.af.raw = false
		fcfg.KeepRaw = cf.af.dir != ""
		pg, err = postgres.Open(ctx, cf.db, postgres.Options{LeaseExpiry: cf.leaseExpiry, HostDelay: cf.ff.delay, Budget: cf.maxPages})
		if err != nil {
			return nil, err
		}
		defer pg.Close()
	}
	modelPath := cf.model
	if modelPath == "" && pg == nil {
		modelPath = cf.db + ".model.json"
	}
	var scorer crawler.Scorer
	var trep *training.Report // when the model is trained here
	if pg != nil && cf.model == "" {
		// The first process trains the model; the others use it.
		modelPath = "database model of crawl " + cf.name
		var m *classify.Model
		m, trep, err = sharedModel(ctx, cmd, pg, cf, seeds)
		if err != nil {
			return nil, err
		}
		if m != nil {
			if err := applyThreshold(cmd, m, cf.mf.threshold, cmd.ErrOrStderr()); err != nil {
				return nil, err
			}
			scorer = training.NewScorer(m)
		} else if strategy != crawler.StrategyBFS {
			return nil, fmt.Errorf("strategy %s needs a model: give --model or example pages in %s", strategy, cf.seeds)
		}
	} else if m, err := loadModel(modelPath); err == nil {
		if err := applyThreshold(cmd, m, cf.mf.threshold, cmd.ErrOrStderr()); err != nil {
			return nil, err
		}
		scorer = training.NewScorer(m)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	} else if cf.model != "" {
		return nil, fmt.Errorf("model %s: %w", cf.model, err)
	} else if len(seeds.Topics) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "training a model from %s …\n", cf.seeds)
		var src training.BacklinkSource
		if strategy == crawler.StrategyLinkBacklinks && cf.mf.backDB == "" {
			// Earlier crawls in the same database know links to the examples.
			if _, err := os.Stat(cf.db); err == nil {
				store, err := sqlite.Open(ctx, cf.db)
				if err != nil {
					return nil, err
				}
				defer store.Close()
				src = store
			}
		}
		if cf.learn && cf.reward == 0 && cf.mf.folds >= 2 {
			cf.mf.cvThresholds = withRewardGrid(cf.mf.cvThresholds)
		}
		m, rep, err := trainModel(ctx, seeds, &cf.ff, &cf.mf, cmd.ErrOrStderr(), src)
		if err != nil {
			return nil, err
		}
		trep = rep
		printTrainReport(cmd.ErrOrStderr(), rep)
		if err := saveModel(modelPath, m); err != nil {
			return nil, err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "model written to %s\n", modelPath)
		scorer = training.NewScorer(m)
	} else if strategy != crawler.StrategyBFS {
		return nil, fmt.Errorf("strategy %s needs a model: give --model or example pages in %s", strategy, cf.seeds)
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
	if cf.siteNorm {
		store := store.(*sqlite.Store)
		// A resumed crawl goes on with the rules it measured.
		rules := sitenorm.NewRules(sitenorm.Policy{})
		stored, err := store.NormRules(ctx, cf.name)
		if err != nil {
			return nil, err
		}
		for _, ru := range stored {
			rules.Restore(ru)
		}
		cfg.SiteNorm = rules
	}
	f, err := fetch.New(fcfg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	crawlProgress(&cfg, cmd.ErrOrStderr(), cf.quiet, cf.logEvery)
	cfg.RetryLater, cfg.MaxOutage, cfg.Log = retryLater(cf.retryLater), cf.maxOutage, cmd.ErrOrStderr()
	// The metrics see the store itself (it counts duplicates); the
	// archive writes each batch before passing it on.
	cs, stopMetrics, err := serveMetrics(cf.metrics, store, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	defer stopMetrics()
	cs, closeWARC, err := archiveStore(ctx, &cf.af, cf.name, fcfg, cs, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	defer closeWARC()
	if cf.skipEx && strategy != crawler.StrategyBFS {
		cfg.Known = seeds.Examples()
	}
	if cf.learn && (strategy == crawler.StrategyLink || strategy == crawler.StrategyLinkBacklinks) {
		lo := learn.Options{RewardAt: cf.reward, Gamma: cf.gamma}
		if cf.reward == 0 && trep != nil {
			lo.Rewards = rewardThresholds(trep, scorer.Topics())
		}
		if cfg.Learner, err = learn.New(scorer.Topics(), lo); err != nil {
			return nil, err
		}
	}
	c, err := crawler.New(cfg, cs, f, scorer)
	if err != nil {
		return nil, err
	}
	settings, _ := json.Marshal(map[string]any{
		"seeds": cf.seeds, "model": modelPath, "strategy": cf.strategy, "frontier": cf.frontier, "learn": cf.learn, "sections": cf.sections,
		"max_pages": cf.maxPages, "window": cf.mf.window, "workers": cf.workers,
		"delay": cf.ff.delay.String(), "host_parallelism": cf.ff.hostPar, "started": time.Now().UTC().Format(time.RFC3339),
	})
	sum, err := c.Run(ctx, seeds.Crawl, string(settings))
	if pg != nil && sum.Crawl != 0 {
		if p, perr := pg.CrawlProgress(context.WithoutCancel(ctx), sum.Crawl); perr == nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "crawl %q in all: %d fetches (%d pages) by %d processes at work now and before; %d by this process; %d URLs waiting, %d leased\n",
				cf.name, p.Fetched, p.Succeeded, p.Processes, p.Mine, p.Waiting, p.Leased)
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

// sharedModel returns the model of a crawl in a PostgreSQL database: the
// one stored there by its first process, or trained here from the seed
// file's examples and stored for the others. It returns a nil model when
// there is none and the seed file has no examples, and the training
// report when the model was trained here.
func sharedModel(ctx context.Context, cmd *cobra.Command, store *postgres.Store, cf *crawlFlags, seeds *training.Seeds) (*classify.Model, *training.Report, error) {
	var trep *training.Report
	b, err := store.ModelOnce(ctx, "crawl/"+cf.name, func() ([]byte, error) {
		if len(seeds.Topics) == 0 {
			return nil, errNoExamples
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "training a model from %s for every process of crawl %q …\n", cf.seeds, cf.name)
		if cf.learn && cf.reward == 0 && cf.mf.folds >= 2 {
			cf.mf.cvThresholds = withRewardGrid(cf.mf.cvThresholds)
		}
		m, rep, err := trainModel(ctx, seeds, &cf.ff, &cf.mf, cmd.ErrOrStderr(), nil)
		if err != nil {
			return nil, err
		}
		trep = rep
		printTrainReport(cmd.ErrOrStderr(), rep)
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
	if errors.Is(err, errNoExamples) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	m, err := classify.Load(bytes.NewReader(b))
	if err != nil {
		return nil, nil, fmt.Errorf("model of crawl %s in the database: %w", cf.name, err)
	}
	if trep == nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "using the model of crawl %q stored in the database\n", cf.name)
	}
	return m, trep, nil
}

var errNoExamples = errors.New("no example pages to train a model")
