package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/internal/atomicfile"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/scope"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/training"
)

// The checks here run before a command fetches or trains anything, so a
// mistake in the flags costs nothing.

// validate checks the fetcher's flags: a zero that would silently mean a
// default is refused, as are negative counts.
func (f *fetchFlags) validate() error {
	switch {
	case f.timeout <= 0:
		return fmt.Errorf("--timeout must be positive, not %s", f.timeout)
	case f.retries < 0:
		return fmt.Errorf("--retries must be 0 (none) or more, not %d", f.retries)
	case f.maxBody <= 0:
		return fmt.Errorf("--max-body must be positive, not %d", f.maxBody)
	case f.delay < 0:
		return fmt.Errorf("--delay must not be negative, not %s", f.delay)
	case f.hostPar < 0:
		return fmt.Errorf("--host-parallelism must be 0 (no limit) or more, not %d", f.hostPar)
	}
	for _, t := range f.types {
		if err := fetch.CheckContentType(t); err != nil {
			return fmt.Errorf("--content-types: %w", err)
		}
	}
	cfg := f.config()
	return cfg.Validate()
}

// validate checks the model flags.
func (f *modelFlags) validate() error {
	if !(f.Threshold > 0 && f.Threshold <= 1) {
		return fmt.Errorf("--threshold must be in (0, 1], not %g", f.Threshold)
	}
	// The flags' own checks come before the classifier's options, which
	// take a zero K as the default and would name no flag.
	if f.Window < 1 || f.Window > training.MaxWindow {
		return fmt.Errorf("--window must be from 1 to %d, not %d", training.MaxWindow, f.Window)
	}
	if f.K < 1 {
		return fmt.Errorf("--k must be at least 1, not %d", f.K)
	}
	if _, err := f.Classify(); err != nil {
		return err
	}
	if !(f.M > 0) || math.IsInf(f.M, 0) {
		return fmt.Errorf("--m must be a positive number, not %g (0 would give unseen words no chance at all)", f.M)
	}
	if f.Folds < 0 || f.Folds == 1 {
		return fmt.Errorf("--folds must be 0 (none) or at least 2, not %d", f.Folds)
	}
	if _, err := training.ParseDocuments(f.Documents); err != nil {
		return err
	}
	for _, p := range []string{f.Backlinks, f.BacklinkDB} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return err
		}
	}
	return nil
}

// validate checks every crawl flag and that the database and the model
// can be written, before any training or fetch.
func (cf *crawlFlags) validate() error {
	if cf.seeds == "" {
		return errors.New("--seeds is required")
	}
	if cf.pf.workers < 1 || cf.pf.workers > crawler.MaxWorkers {
		return fmt.Errorf("--workers must be from 1 to %d, not %d", crawler.MaxWorkers, cf.pf.workers)
	}
	for _, l := range []struct {
		name string
		v    int
	}{{"max-pages", cf.maxPages}, {"max-fetches", cf.maxFetches}, {"max-pages-per-topic", cf.maxTopic},
		{"max-depth", cf.maxDepth}, {"max-per-host", cf.maxPerHost}, {"max-frontier-per-host", cf.maxFrontierHost}, {"max-frontier", cf.maxFrontier}} {
		if l.v < 0 {
			return fmt.Errorf("--%s must be 0 (no limit) or more, not %d", l.name, l.v)
		}
	}
	if cf.retryLater < 0 {
		return fmt.Errorf("--retry-later must be 0 (none) or more, not %d", cf.retryLater)
	}
	if cf.maxOutage <= 0 {
		return fmt.Errorf("--max-outage must be positive, not %s", cf.maxOutage)
	}
	if cf.logEvery < 0 {
		return fmt.Errorf("--log-every must not be negative, not %s", cf.logEvery)
	}
	if cf.groupCommit < 0 {
		return fmt.Errorf("--group-commit must not be negative, not %s (0: a transaction per batch of results)", cf.groupCommit)
	}
	if cf.maxURL < 1 {
		return fmt.Errorf("--max-url-length must be positive, not %d", cf.maxURL)
	}
	if _, err := crawlScope(cf.scope); err != nil {
		return err
	}
	if _, err := crawler.ParseStrategy(cf.strategy); err != nil {
		return err
	}
	cfg := crawler.Config{Frontier: crawler.Frontier(cf.frontier), Workers: cf.pf.workers, Tunnel: cf.pf.tunnel, Promote: cf.pf.promote,
		Segment: segment.Options{Window: cf.mf.Window}}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := cf.ff.validate(); err != nil {
		return err
	}
	if err := cf.mf.validate(); err != nil {
		return err
	}
	if cf.db == "" {
		return errors.New("--db must name a file")
	}
	if err := checkWARCMax(cf.af.maxSize); err != nil {
		return err
	}
	// Refused with either store: a config file shared with PostgreSQL
	// runs is wrong for them too.
	if cf.leaseExpiry <= 0 {
		return fmt.Errorf("--lease-expiry must be positive, not %s", cf.leaseExpiry)
	}
	if !postgres.IsURL(cf.db) {
		if err := atomicfile.CheckWritableDir(filepath.Dir(cf.db), "--db"); err != nil {
			return err
		}
		if f, err := os.OpenFile(cf.db, os.O_WRONLY, 0); err == nil {
			f.Close()
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("--db %s: the crawl writes to it: %w", cf.db, err)
		}
	}
	if cf.model != "" {
		if _, err := os.Stat(cf.model); err != nil {
			return fmt.Errorf("--model: %w", err)
		}
	}
	return nil
}

// validateTrain checks the flags of scent train and that its outputs can
// be written.
func validateTrain(ff *fetchFlags, mf *modelFlags, model, jsonOut string) error {
	if err := ff.validate(); err != nil {
		return err
	}
	if err := mf.validate(); err != nil {
		return err
	}
	if err := checkOutputFile(model, "--model"); err != nil {
		return err
	}
	if jsonOut != "" {
		return checkOutputFile(jsonOut, "--report-json")
	}
	return nil
}

// checkOutputFile reports, for the flag that names it, whether path can
// be written by writeFileAtomic: its folder exists and is writable, and
// path is neither a directory nor an SQLite database, which would be
// found out only when the work is done, or be written over.
func checkOutputFile(path, flag string) error {
	if err := atomicfile.CheckWritableDir(filepath.Dir(path), flag); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: %s is a directory; give a file", flag, path)
	}
	if isSQLite(path) {
		return fmt.Errorf("%s: %s is an SQLite database (a crawl's?): not written over; give another output file", flag, path)
	}
	return nil
}

// retryLater turns the --retry-later count into crawler.Config.RetryLater,
// whose zero means the default.
func retryLater(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// crawlScope compiles the crawl's scope flags; an entry refused is named
// with its flag.
func crawlScope(c scope.Config) (*scope.Rules, error) {
	r, err := scope.New(c)
	var se *scope.Error
	if errors.As(err, &se) {
		return nil, fmt.Errorf("--%s: %q %s", se.List, se.Entry, se.Why)
	}
	return r, err
}
