package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/refresh"
	"github.com/scent-crawler/scent/revisit"
)

// watchFlags are the settings of scent revisit --watch.
type watchFlags struct {
	on       bool
	capacity int
	groups   int
	hours    string
	policy   string
	until    string
	every    time.Duration
	// clockEpoch and clockScale run a faster clock for demonstrations and
	// tests: now = epoch + (real now − epoch) × scale.
	clockEpoch string
	clockScale float64
}

func (w *watchFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&w.on, "watch", false, "keep running: check pages as they fall due (see above)")
	fs.IntVar(&w.capacity, "capacity", 1000, "with --watch: most checks a day")
	fs.IntVar(&w.groups, "groups", 16, "with --watch: the paper's 16 revisit groups, or its 6-group variant (6)")
	fs.StringVar(&w.policy, "policy", "sqrt", "with --watch: how --capacity is shared by change rate — sqrt (fetches in proportion to the square root of the rate: the freshest in results/refresh), optimal, uniform, proportional — or groups (the paper's intervals)")
	fs.StringVar(&w.hours, "hours", "paper", "with --watch: hour-of-day rule, paper (00:00 or 12:00) or after-changes")
	fs.StringVar(&w.until, "until", "", "with --watch: stop at this time (RFC 3339); default never")
	fs.DurationVar(&w.every, "progress-every", 10*time.Second, "time between progress lines: with --watch, or when stderr is not a terminal (plain, time-stamped lines)")
	fs.StringVar(&w.clockEpoch, "clock-epoch", "", "with --clock-scale: the moment (RFC 3339) from which the clock runs faster")
	fs.Float64Var(&w.clockScale, "clock-scale", 0, "run the clock this many times faster (tests and demonstrations)")
	fs.MarkHidden("clock-epoch")
	fs.MarkHidden("clock-scale")
}

// schedule is the scheduler the flags ask for: its capacity, groups,
// policy, hours and end, without the revisit's own settings
// (WatchConfig.Config) or a faster clock. It is an error naming the flag
// when one of them has a value the scheduler does not take.
func (wf *watchFlags) schedule() (revisit.WatchConfig, error) {
	cfg := revisit.WatchConfig{Capacity: wf.capacity}
	if wf.capacity < 1 {
		return cfg, fmt.Errorf("--capacity must be at least 1 check a day, not %d", wf.capacity)
	}
	switch wf.groups {
	case 16:
	case 6:
		cfg.Groups = refresh.Groups6
	default:
		return cfg, fmt.Errorf("--groups must be 16 or 6, not %d", wf.groups)
	}
	if wf.policy != "groups" {
		p, err := refresh.ParsePolicy(wf.policy)
		if err != nil {
			return cfg, fmt.Errorf("--policy: %w, or groups", err)
		}
		cfg.Allocate, cfg.Policy = true, p
	}
	switch wf.hours {
	case "paper":
		cfg.Hours = refresh.PaperHours
	case "after-changes":
		cfg.Hours = refresh.AfterChanges
	default:
		return cfg, fmt.Errorf("--hours must be paper or after-changes, not %q", wf.hours)
	}
	if wf.until != "" {
		t, err := time.Parse(time.RFC3339, wf.until)
		if err != nil {
			return cfg, fmt.Errorf("--until: %w", err)
		}
		cfg.Until = t
	}
	return cfg, nil
}

// runWatch runs the scheduler of scent revisit --watch.
func runWatch(cmd *cobra.Command, wf *watchFlags, quiet bool, base revisit.Config, name string, store revisit.WatchStore, f *fetch.Fetcher) error {
	cfg, err := wf.schedule()
	if err != nil {
		return err
	}
	cfg.Config = base
	if wf.clockScale > 0 {
		epoch := time.Now()
		if wf.clockEpoch != "" {
			t, err := time.Parse(time.RFC3339Nano, wf.clockEpoch)
			if err != nil {
				return fmt.Errorf("--clock-epoch: %w", err)
			}
			epoch = t
		}
		scale := wf.clockScale
		cfg.Now = func() time.Time {
			return epoch.Add(time.Duration(float64(time.Since(epoch)) * scale))
		}
		cfg.Sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(time.Duration(float64(d) / scale))
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	cfg.ProgressEvery = wf.every
	if !quiet {
		cfg.Progress = cmd.ErrOrStderr()
	}
	sum, err := revisit.Watch(cmd.Context(), cfg, store, f)
	fmt.Fprintf(cmd.OutOrStdout(), "revisit --watch %q: %d pages checked: %d changed, %d unchanged, %d not modified (304), %d failed\n",
		name, sum.Checked, sum.Changed, sum.Unchanged, sum.NotModified, sum.Failed)
	if err != nil && cmd.Context().Err() != nil {
		return nil
	}
	return err
}
