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
func TestHelp_flagGroups(t *testing.T) {
	out, err := runScent(t, "crawl", "--help")
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for _, w := range []string{"Input:", "--seeds", "Budget and scope:", "--max-pages", "Politeness and fetching:", "--delay",
		"Output:", "--warc", "Model tuning", "--window", "Research switches:", "--tunnel"} {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("crawl --help lacks %q after offset %d:\n%s", w, at, out)
		}
		at += i + len(w)
	}
	root := newRootCmd()
	crawl, _, err := root.Find([]string{"crawl"})
	if err != nil {
		t.Fatal(err)
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
			f.Name != "k" && f.Name != "window" && f.Name != "threshold" {
			t.Errorf("--%s: default %q in crawl, %q in experiment", f.Name, f.DefValue, e.DefValue)
		}
	})
	for _, name := range []string{"lockstep", "sections", "learn", "tunnel", "workers", "skip-examples"} {
		if exp.Flags().Lookup(name) == nil {
			t.Errorf("experiment lacks the crawl switch --%s", name)
		}
	}
}
