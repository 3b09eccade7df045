package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/learn"
)

// newLearntCmd builds "scent learnt": what a crawl's learner learnt.
func newLearntCmd() *cobra.Command {
	var db, name string
	var top int
	var asJSON bool
	var rf readFlags
	cmd := &cobra.Command{
		Use:   "learnt --db FILE|postgres://… [--crawl NAME]",
		Short: "Show what a crawl's learner learnt: which link features lead to each topic, lead on, or lead nowhere",
		Long: `Learnt reads the learner's state that a crawl saved last (every few
hundred pages, and when it ends) and shows, per topic, the evidence its
link model learnt from — the links that led to a relevant page, those that
led to a page that led to one, and those that led nowhere, the links
between the training pages included at the prior's weight — and the
features of a link that tell them apart most: those more common among the
links that led to the topic (or on to it) than among those that led
nowhere, and the other way round, ranked by the weight of the feature in
the model times how often it is there. Each feature is shown with the
share of each kind of link that has it, as the model estimates it.

A feature is a word of the link's context (the anchor and the words
around it), anchor:WORD (a word of the anchor), url:WORD (a word of the
target's path; url:~ a home directory, url:/$ a directory), link:same-host
or link:other-host, depth:N (links from a seed), base:N (the seed model's
score of the link, in fifths), source:relevant or source:not-relevant (the
page the link is on) and siblings:… (what the pages fetched through the
same page's links were).`,
		Example: `  scent learnt --db scent.db
  scent learnt --db scent.db --top 30 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if top < 1 {
				return fmt.Errorf("--top must be at least 1, not %d", top)
			}
			o, err := rf.options(cmd)
			if err != nil {
				return err
			}
			return runLearnt(cmd.Context(), cmd.OutOrStdout(), db, name, o, top, asJSON)
		},
	}
	cmd.Flags().StringVar(&db, "db", "scent.db", "database: a SQLite file, or postgres://USER@HOST:PORT/DB")
	cmd.Flags().StringVar(&name, "crawl", "", "crawl name (default: the latest crawl)")
	cmd.Flags().IntVar(&top, "top", 15, "features shown of each kind per topic")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the explanation as JSON")
	rf.register(cmd.Flags())
	return cmd
}

func runLearnt(ctx context.Context, w io.Writer, db, name string, o experiment.ReadOptions, top int, asJSON bool) error {
	store, c, err := experiment.OpenCrawlReader(ctx, db, name, o)
	if err != nil {
		return err
	}
	defer store.Close()
	state, err := store.LearnerState(ctx, c.ID)
	if err != nil {
		return err
	}
	if state == nil {
		return noLearnerState(c.Name, c.Config)
	}
	e, err := learn.ExplainState(state, top)
	if err != nil {
		return fmt.Errorf("crawl %q: %w", c.Name, err)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(e)
	}
	fmt.Fprintf(w, "crawl %q: the learner observed %d fetches (failed ones included); its link models were last rebuilt after %d\n", c.Name, e.Seen, e.Built)
	for _, t := range e.Topics {
		fmt.Fprintf(w, "\ntopic %s: evidence of %.0f links that led to its pages, %.0f that led on to them, %.0f that led nowhere", t.Topic, t.Leads, t.LeadsOn, t.Nowhere)
		if t.Reward > 0 {
			fmt.Fprintf(w, " (a page rewards the links to it at a page score of %g)", t.Reward)
		}
		fmt.Fprintln(w)
		if !t.Model {
			fmt.Fprintln(w, "  no link model yet: the topic's links are valued by the seed model")
			continue
		}
		section := func(title string, fs []learn.FeatureShares) {
			fmt.Fprintf(w, "  %s (share of the links that led to %s pages / led on / led nowhere):\n", title, t.Topic)
			if len(fs) == 0 {
				fmt.Fprintln(w, "    none told apart yet")
			}
			width := 0 // in characters: a feature may be a word of any script
			for _, f := range fs {
				width = max(width, utf8.RuneCountInString(f.Feature))
			}
			for _, f := range fs {
				pad := strings.Repeat(" ", width-utf8.RuneCountInString(f.Feature))
				fmt.Fprintf(w, "    %s%s  %5.1f %% / %5.1f %% / %5.1f %%\n", f.Feature, pad, 100*f.Leads, 100*f.LeadsOn, 100*f.Nowhere)
			}
		}
		section("lead to "+t.Topic+" pages", t.ToTopic)
		section("lead on to pages that lead to them", t.ToNext)
		section("lead nowhere", t.ToNowhere)
	}
	return nil
}

// noLearnerState is the error of a crawl that saved no learner's state,
// saying why from the settings it recorded (config, JSON): it ran
// without a learner, and which crawler it was, or it has one that has
// not saved yet. A crawl that recorded neither is told both.
func noLearnerState(name, config string) error {
	var set struct {
		Learn    *bool  `json:"learn"`
		Strategy string `json:"strategy"`
	}
	if json.Unmarshal([]byte(config), &set) != nil || set.Learn == nil {
		return fmt.Errorf("crawl %q saved no learner's state: it ran without a learner (--learn=false, --preset paper, --strategy bfs or page), or ended before its first save", name)
	}
	if *set.Learn {
		return fmt.Errorf("crawl %q has a learner that saved no state yet: it saves every few hundred pages and when the crawl stops, and this crawl ended before its first save (killed), or is starting; resume it and look again", name)
	}
	switch set.Strategy {
	case "bfs":
		return fmt.Errorf("crawl %q has no learner to explain: it is a breadth-first crawl (--strategy bfs), which follows every link without learning which lead to a topic", name)
	case "page":
		return fmt.Errorf("crawl %q has no learner to explain: its links were valued by the score of their page (--strategy page), learning nothing", name)
	}
	return fmt.Errorf("crawl %q has no learner to explain: it ran with --learn=false or --preset paper, whose links are valued by the seed model alone, learning nothing", name)
}
