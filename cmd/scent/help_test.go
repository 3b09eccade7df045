package main

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestHelp_tiers lists the everyday commands first, in their order, then
// the research ones.
func TestHelp_tiers(t *testing.T) {
	out, err := runScent(t, "help")
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"Everyday commands:", "  train ", "  crawl ", "  export ", "  report ", "  search ", "  revisit ", "  diff ", "  dedup ",
		"Research commands", "  replay ", "  experiment ", "  change-eval "}
	at := 0
	for _, w := range order {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("help lacks %q after offset %d (or lists it out of order):\n%s", w, at, out)
		}
		at += i + len(w)
	}
}

// TestHelp_flagGroups lists crawl's flags by purpose, every flag in a
// group, and experiment shares crawl's switches with the same defaults.
// Model tuning is train's: crawl keeps --threshold alone and says how to
// tune.
func TestHelp_flagGroups(t *testing.T) {
	out, err := runScent(t, "crawl", "--help")
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for _, w := range []string{"scent train --seeds FILE --model model.json", "scent crawl --seeds FILE --model model.json",
		"Input:", "--seeds", "--threshold", "Budget and scope:", "--max-pages", "Politeness and fetching:", "--delay",
		"Output:", "--warc", "Research switches:", "--tunnel"} {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("crawl --help lacks %q after offset %d:\n%s", w, at, out)
		}
		at += i + len(w)
	}
	if strings.Contains(out, "Model tuning") {
		t.Errorf("crawl --help has a model tuning group:\n%s", out)
	}
	root := newRootCmd()
	crawl, _, err := root.Find([]string{"crawl"})
	if err != nil {
		t.Fatal(err)
	}
	train, _, err := root.Find([]string{"train"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"backlinks", "backlinks-db", "documents", "event", "folds", "k", "m", "url-tokens", "window"} {
		if crawl.Flags().Lookup(name) != nil {
			t.Errorf("crawl has the model tuning flag --%s", name)
		}
		if f := train.Flags().Lookup(name); f == nil || len(f.Annotations[flagGroupKey]) == 0 || f.Annotations[flagGroupKey][0] != "model" {
			t.Errorf("train lacks --%s under model tuning", name)
		}
	}
	exp, _, err := root.Find([]string{"experiment"})
	if err != nil {
		t.Fatal(err)
	}
	crawl.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" && len(f.Annotations[flagGroupKey]) == 0 {
			t.Errorf("crawl --%s is in no group", f.Name)
		}
		if e := exp.Flags().Lookup(f.Name); e != nil && e.DefValue != f.DefValue && f.Name != "strategy" && f.Name != "frontier" &&
			f.Name != "threshold" && f.Name != "lockstep" {
			t.Errorf("--%s: default %q in crawl, %q in experiment", f.Name, f.DefValue, e.DefValue)
		}
	})
	// An experiment repeats exactly; a crawl of real servers does not
	// wait for a round's slowest fetch.
	if d := crawl.Flags().Lookup("lockstep").DefValue; d != "false" {
		t.Errorf("crawl --lockstep defaults to %s, want false", d)
	}
	if d := exp.Flags().Lookup("lockstep").DefValue; d != "true" {
		t.Errorf("experiment --lockstep defaults to %s, want true", d)
	}
	for _, name := range []string{"lockstep", "sections", "learn", "tunnel", "workers", "skip-examples"} {
		if exp.Flags().Lookup(name) == nil {
			t.Errorf("experiment lacks the crawl switch --%s", name)
		}
	}
}
