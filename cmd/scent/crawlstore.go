package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/sqlite"
)

// openShared opens the PostgreSQL store of a crawl whose --db is a
// database URL, or returns nil for a file path. It refuses what that
// store does not keep.
func openShared(cmd *cobra.Command, cf *crawlFlags, fcfg *fetch.Config) (*postgres.Store, error) {
	if !postgres.IsURL(cf.db) {
		return nil, nil
	}
	if cf.pf.siteNorm {
		return nil, errors.New("--site-norm keeps its measurements in SQLite only; drop it with --db postgres://…")
	}
	if cf.af.raw && cmd.Flags().Changed("raw") {
		return nil, errors.New("--raw: the PostgreSQL store keeps no raw responses; use --warc DIR to keep them in WARC files")
	}
	cf.af.raw = false
	fcfg.KeepRaw = cf.af.dir != ""
	// A database server lost (restarted, failed over) is waited for as
	// long as the network is.
	return postgres.Open(cmd.Context(), cf.db, postgres.Options{LeaseExpiry: cf.leaseExpiry, HostDelay: cf.ff.delay, Budget: cf.maxPages,
		MaxOutage: cf.maxOutage, Log: cmd.ErrOrStderr()})
}

// storedNormRules returns the site normalization rules a crawl measured
// so far (none for a new crawl).
func storedNormRules(ctx context.Context, store *sqlite.Store, name string) (*sitenorm.Rules, error) {
	rules := sitenorm.NewRules(sitenorm.Policy{})
	err := store.EachNormRule(ctx, name, func(ru sitenorm.Rule) error {
		rules.Restore(ru)
		return nil
	})
	return rules, err
}
