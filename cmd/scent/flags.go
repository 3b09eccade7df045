package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/internal/atomicfile"
	"github.com/scent-crawler/scent/training"
)

// fetchFlags are the fetcher's settings, shared by train and crawl.
type fetchFlags struct {
	proxy        string
	userAgent    string
	timeout      time.Duration
	maxBody      int64
	retries      int
	ignoreRobots bool
	delay        time.Duration
	hostPar      int
	types        []string
	contact      string
	maxCrawlDel  time.Duration
	ipDelay      time.Duration
	ipPar        int
}

func (f *fetchFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.proxy, "proxy", "", "HTTP proxy for every request, e.g. a scent replay at http://127.0.0.1:8080")
	fs.StringVar(&f.userAgent, "user-agent", fetch.DefaultUserAgent, "User-Agent header")
	fs.DurationVar(&f.timeout, "timeout", 20*time.Second, "timeout of one HTTP exchange")
	fs.Int64Var(&f.maxBody, "max-body", 10<<20, "largest accepted body in bytes")
	fs.IntVar(&f.retries, "retries", 2, "retries on 5xx, 429 and network errors (0: none)")
	fs.BoolVar(&f.ignoreRobots, "ignore-robots", false, "do not obey robots.txt")
	fs.DurationVar(&f.delay, "delay", time.Second, "least time between two requests to one host (0: no delay)")
	fs.IntVar(&f.hostPar, "host-parallelism", 2, "most requests in flight to one host (0: no limit)")
	fs.StringVar(&f.contact, "contact", "", "URL or e-mail address where site owners reach you, added to the user agent")
	fs.DurationVar(&f.maxCrawlDel, "max-crawl-delay", 30*time.Second, "cap of a robots.txt Crawl-delay (longer ones are cut and logged; negative: ignore Crawl-delay)")
	fs.DurationVar(&f.ipDelay, "ip-delay", 0, "least time between two requests to one IP address, whatever the host (0: none; not through --proxy)")
	fs.IntVar(&f.ipPar, "ip-parallelism", 0, "most requests in flight to one IP address (0: no limit; not through --proxy)")
	fs.StringSliceVar(&f.types, "content-types", []string{"text/html", "application/xhtml+xml"}, "accepted media types (* for all)")
	setFlagGroup(fs, "politeness", "proxy", "user-agent", "timeout", "max-body", "retries", "ignore-robots", "delay",
		"host-parallelism", "contact", "max-crawl-delay", "ip-delay", "ip-parallelism", "content-types")
}

func (f *fetchFlags) config() fetch.Config {
	retries := f.retries
	if retries == 0 {
		retries = -1
	}
	return fetch.Config{
		UserAgent: f.userAgent, Timeout: f.timeout, MaxBodyBytes: f.maxBody, Retries: retries,
		IgnoreRobots: f.ignoreRobots, HostDelay: f.delay, HostParallelism: f.hostPar,
		ContentTypes: f.types, Proxy: f.proxy, Contact: f.contact, MaxCrawlDelay: f.maxCrawlDel,
		IPDelay: f.ipDelay, IPParallelism: f.ipPar,
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "\n"+format+"\n", args...) },
	}
}

// modelFlags are the classifier's and segmenter's settings.
type modelFlags struct {
	training.Settings
	// pageJudge trains a second model that judges fetched pages
	// (experiment.PageSettings, training.Seeds.PageSeeds).
	pageJudge bool
}

// pageJudgeUsage is --page-judge's help, on scent train and scent crawl.
const pageJudgeUsage = `also train a page judge, the model that judges fetched pages for the link learner: whole pages, every topic and every kind of page of the seed file ("other:KIND" lines) a class of its own, kept beside the model as MODEL.page.json (--page-judge=false: the model of links judges pages too)`

// register registers every model flag, for scent train, in the "model"
// group.
func (f *modelFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.K, "k", classify.DefaultK, "number of features kept by χ²")
	fs.Float64Var(&f.Threshold, "threshold", classify.DefaultThreshold, "on-topic threshold of P(topic|link), in (0, 1]")
	fs.IntVar(&f.Window, "window", 10, "tokens of context on each side of a link")
	fs.BoolVar(&f.pageJudge, "page-judge", true, pageJudgeUsage)
	f.registerFixed(fs)
	setFlagGroup(fs, "model", "k", "threshold", "window", "page-judge")
}

// registerCrawl sets the defaults of every model setting and registers
// --threshold alone, the one model setting crawl takes: a crawl trains
// with the defaults, and a tuned model comes from scent train.
func (f *modelFlags) registerCrawl(fs *pflag.FlagSet) {
	f.Settings = training.DefaultSettings()
	fs.Float64Var(&f.Threshold, "threshold", classify.DefaultThreshold,
		"on-topic threshold of P(topic|link), in (0, 1], of the model trained here; given, it replaces the thresholds of a model read (--model or the one kept beside the database)")
	fs.BoolVar(&f.pageJudge, "page-judge", true, pageJudgeUsage+"; a model read is used with the page judge beside it, if any")
}

// registerFixed registers the model flags other than --k, --threshold and
// --window, which "scent experiment" takes as lists.
func (f *modelFlags) registerFixed(fs *pflag.FlagSet) {
	fs.Float64Var(&f.M, "m", classify.DefaultM, "m-estimate equivalent sample size")
	fs.StringVar(&f.Event, "event", "binary", "Naive Bayes event model: binary or multinomial")
	fs.Float64Var(&f.PriorMix, "prior-mix", 0, "share, in [0, 1), by which the class priors are shrunk toward uniform (0: the training documents' shares)")
	f.AbsentDiscount = training.AutoAbsentDiscount
	fs.Var(absentDiscountFlag{&f.AbsentDiscount}, "absent-discount", `share, in [0, 1], by which the binary model discounts the evidence of the selected words a document lacks (0: the paper's model; 1: only the words it holds count); "auto": the chance that two example pages are on the same host (near 0 when they come from many sites, 1 when from one)`)
	fs.Float64Var(&f.MinChi2, "min-chi2", classify.SignificantChi2, "least χ² of a feature kept: of the --k features, those below it are left out, so that a few examples give a model of the words that tell their topic apart, not of every word of theirs (3.841: a tie to a class that chance gives once in twenty; 0: the top --k whatever their χ², the paper's)")
	fs.BoolVar(&f.URLTokens, "url-tokens", false, "add the words of a link's URL path to its features")
	fs.IntVar(&f.Folds, "folds", 5, "cross-validation folds of the training report (0: none)")
	fs.StringVar(&f.Documents, "documents", "windows", "training documents: pages, windows (segment-sized pieces of pages), pages+windows, links or windows+links")
	fs.StringVar(&f.Backlinks, "backlinks", "", "CSV file of parent_url,target_url: the segments of links to the examples become training documents")
	fs.StringVar(&f.BacklinkDB, "backlinks-db", "", "scent database whose stored links to the examples become training documents")
	setFlagGroup(fs, "model", "m", "event", "prior-mix", "absent-discount", "min-chi2", "url-tokens", "folds", "documents", "backlinks", "backlinks-db")
}

// writeFileAtomic writes path through a temporary file and a rename, so
// a crash never leaves a half-written file. It refuses to write over an
// SQLite database (a crawl's --db given as -o by mistake).
func writeFileAtomic(path string, write func(*os.File) error) error {
	if isSQLite(path) {
		return fmt.Errorf("%s is an SQLite database (a crawl's?): not written over; give another output file", path)
	}
	return atomicfile.Write(path, write)
}

// isSQLite reports whether path is a regular file that starts with
// SQLite's header.
func isSQLite(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == "SQLite format 3\x00"
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func jsonIndent(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc
}

// seedUsage is the help of the --seed flag of the commands that read a
// labelled collection.
const seedUsage = "start URL of the crawl (repeat; default the home pages of the collection's sites)"

// absentDiscountFlag is --absent-discount and --page-absent-discount: a
// number, or "auto" (training.AutoAbsentDiscount). The number is checked
// with the rest of the model's settings.
type absentDiscountFlag struct{ v *float64 }

func (f absentDiscountFlag) String() string {
	if f.v == nil || *f.v == training.AutoAbsentDiscount {
		return "auto"
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64)
}

func (f absentDiscountFlag) Set(s string) error {
	if s == "auto" {
		*f.v = training.AutoAbsentDiscount
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New(`want a number in [0, 1] or "auto"`)
	}
	*f.v = v
	return nil
}

func (f absentDiscountFlag) Type() string { return "auto|share" }
