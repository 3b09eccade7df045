package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/training"
)

// policyFlags are the crawl switches that scent crawl and scent
// experiment share, registered once here with one default each (but
// --lockstep's, see register): adding a switch touches this file and
// the place that reads it.
type policyFlags struct {
	workers      int
	tunnel       bool
	promote      bool
	sections     bool
	lockstep     bool
	overlap      bool
	speculate    bool
	siteNorm     bool
	survey       bool
	learn        bool
	skipExamples bool
	reward       float64
	gamma        float64
	prior        float64
	preset       string
}

// register adds the flags to fs. lockstep is --lockstep's default: on
// for scent experiment, whose runs must repeat exactly to be compared;
// off for scent crawl, which fetches from real servers, where a round
// that waits for its slowest fetch costs a third of the pages per
// second (results/learn, "Speed and memory").
func (p *policyFlags) register(fs *pflag.FlagSet, lockstep bool) {
	fs.IntVar(&p.workers, "workers", 16, "pages fetched at once")
	fs.BoolVar(&p.learn, "learn", true, "learn the value of links from the crawl's own pages and serve every link best first by it")
	fs.Float64Var(&p.reward, "learn-reward", 0, "with --learn: the page score at which a fetched page rewards the links that led to it (0: per topic, where the cross-validated page F1 of the examples was best when the model was trained, as its file records, else 0.5)")
	fs.Float64Var(&p.gamma, "learn-gamma", learn.DefaultGamma, "with --learn: the weight of a link's value that comes from the pages beyond its target")
	fs.Float64Var(&p.prior, "learn-prior", learn.DefaultPrior, "with --learn: the weight of each link between the training pages (those of the seed file) in the evidence the learner starts from — a link to an example leads to the topic, a link to a page linking to one leads on, others lead nowhere; the training pages are read when a new crawl starts, fetched again unless the crawl trains its model (0: start from no evidence)")
	fs.BoolVar(&p.survey, "survey", true, "with best-first order (--learn or --frontier best-first): fetch each seed's own links, its site's navigation, before any deeper link, so that the learner sees where each of them leads first")
	fs.BoolVar(&p.skipExamples, "skip-examples", true, "never fetch the pages the model learnt from (they are in hand); bfs fetches them")
	fs.BoolVar(&p.sections, "sections", true, "treat an on-topic page as a compound document: links into its directory (/cs100/ for /cs100/, /cs100/index.html or /cs100/cs100.html; /x/cs100/ for /x/cs100.html) wait until the stack (and with --tunnel the reserve) is spent, or are dropped")
	fs.BoolVar(&p.lockstep, "lockstep", lockstep, "fetch in rounds of --workers pages, each committed in order before the next: the crawl repeats exactly whatever the timing, but each round waits for its slowest fetch (--lockstep=false fetches whenever a worker is free)")
	fs.BoolVar(&p.overlap, "overlap", false, "with --lockstep: fetch each round while the round before is committed (popped a round earlier; redirect targets queued): faster, and still repeats exactly")
	fs.BoolVar(&p.speculate, "speculate", true, "with --lockstep: guess each round in memory and fetch the guess while the round before is committed and the next popped; the pop decides, so the crawl is the same, only faster (a guessed fetch it does not take is discarded, its answer kept for when its entry is popped)")
	fs.BoolVar(&p.tunnel, "tunnel", false, "when a topic's stack runs empty, go on from its off-topic links, shallowest first")
	fs.BoolVar(&p.promote, "promote", false, "with --tunnel: once most pages fetched through a page's links are on-topic, move its other links from the reserve to the stack")
	fs.BoolVar(&p.siteNorm, "site-norm", false, "site-based URL normalization: measure which extended normalizations (EN1–EN6) each host tolerates, within 5 % of the fetches, and apply those it adopts to the URLs pushed (scent normalize-eval shows them)")
	fs.StringVar(&p.preset, "preset", "", `"paper": the paper's crawler (no learner, no sections, no example skipped, one model), for the settings not given`)
	setFlagGroup(fs, "budget", "workers")
	setFlagGroup(fs, "research", "learn", "survey", "learn-reward", "learn-gamma", "learn-prior", "skip-examples", "sections", "lockstep", "overlap", "speculate", "tunnel", "promote", "site-norm", "preset")
}

// apply sets the preset's flags the command line did not set and checks
// that the switches go together.
func (p *policyFlags) apply(fs *pflag.FlagSet) error {
	if err := applyPreset(fs, p.preset); err != nil {
		return err
	}
	if !(p.gamma >= 0 && p.gamma < 1) {
		return fmt.Errorf("--learn-gamma %v: want a weight in [0, 1)", p.gamma)
	}
	if !(p.reward >= 0 && p.reward <= 1) {
		return fmt.Errorf("--learn-reward %v: want a page score in [0, 1] (0: per topic)", p.reward)
	}
	if !(p.prior >= 0 && p.prior <= learn.MaxPriorWeight) {
		return fmt.Errorf("--learn-prior %v: want a weight from 0 to %g", p.prior, float64(learn.MaxPriorWeight))
	}
	for _, f := range []struct {
		name string
		on   bool
	}{{"overlap", p.overlap}, {"speculate", p.speculate}} {
		if f.on && fs.Changed(f.name) && !p.lockstep {
			return fmt.Errorf("--%s changes how lockstep rounds are fetched, but this crawl is not in lockstep: add --lockstep", f.name)
		}
	}
	if p.learn && (p.tunnel || p.promote) {
		return errors.New("--tunnel and --promote steer the paper's stacks, but the link learner (on by default) keeps every link on them: add --learn=false or --preset paper")
	}
	return nil
}

// paperPreset are the settings of the paper's crawler where the defaults
// differ: no link learner, no survey of the seeds' links, no sections,
// examples fetched like any page, one model for links and pages, the
// paper's Naive Bayes (no discount of the words a document lacks, the
// top K features whatever their χ²; scent crawl, which has no model
// flags, sets its model's with paperModel).
var paperPreset = map[string]string{"learn": "false", "survey": "false", "sections": "false", "skip-examples": "false", "page-negatives": "", "page-judge": "false", "absent-discount": "0", "min-chi2": "0"}

// paperModel sets the model settings of the paper's crawler that scent
// crawl trains with: those of paperPreset among the model flags.
func paperModel(s *training.Settings) error {
	least, err := strconv.ParseFloat(paperPreset["min-chi2"], 64)
	if err != nil {
		return err
	}
	s.MinChi2 = least
	return absentDiscountFlag{&s.AbsentDiscount}.Set(paperPreset["absent-discount"])
}

// applyPreset sets the flags of preset ("" keeps the defaults, the best
// crawler; "paper" the paper's) that the command line did not set.
func applyPreset(fs *pflag.FlagSet, preset string) error {
	switch preset {
	case "":
		return nil
	case "paper":
	default:
		return fmt.Errorf("--preset %q: want paper (or nothing, for the best crawler)", preset)
	}
	for name, v := range paperPreset {
		f := fs.Lookup(name)
		if f == nil || f.Changed {
			continue
		}
		if err := f.Value.Set(v); err != nil {
			return fmt.Errorf("--preset %s: %s: %w", preset, name, err)
		}
	}
	return nil
}
