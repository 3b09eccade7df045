package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/urlnorm"
)

func newReportCmd() *cobra.Command {
	var dbs, names, thresholds []string
	var labels, format, out, trained, seeds, bfsDB string
	var every int
	var topics []string
	var scope string
	var rf readFlags
	cmd := &cobra.Command{
		Use:   "report --db FILE|postgres://… [--crawl NAME]... [--labels FILE] [--format json|md|html|csv]",
		Short: "Measure crawls: precision, recall, harvest rate and link-classifier quality per topic",
		Long: `report reads crawls from the database and, per topic, counts the pages
fetched and the relevant ones — by a labels file (url<TAB>label, as
written by "scent labels") when given, otherwise by the page classifier
(then marked as estimated) — and gives recall against held-out targets:
the labelled pages of the crawled hosts (or all labels, --targets
all-labels) that the model did not learn from: those of --trained or
--seeds when given, else those the crawl kept in the database (scent crawl
and scent experiment keep them), else those of trained.txt beside a SQLite
file. A page learnt from may be fetched (it costs budget) but is never
counted as found. Per topic: recall at 250, 500, 1,000, 2,000 and 4,000
pages (those the crawl reached), the pages (successful fetches, the
budget) and fetches (failed included) after which it had found 25, 50 and
75 % of the held-out targets, and, with --bfs, breadth-first's figures and
the speed-up over it; then, over all labels, relevant pages, precision,
recall (recall_all_labels) and harvest-rate points every --every pages.
With labels it also measures the link classifier on labelled links: a link
is relevant when its target is labelled with the topic, predicted relevant
when its stored score is at least --link-threshold.

--db is a SQLite file or a PostgreSQL database,
postgres://USER@HOST:PORT/DB as for scent crawl (a crawl shared by many
processes). Several crawls are compared side by side: repeat --crawl
(crawls of one database), repeat --db (the latest or the named crawl of
each), or give as many --crawl as --db (paired in order); without
--trained or --seeds each counts its own held-out targets (the pages its
own model did not learn from), and the command says so when those
differ. --format html writes one self-contained page with the
harvest and recall-against-budget charts; csv writes the curve points;
json writes one object, or an array for several crawls; md writes one
document per crawl.

A PostgreSQL server lost while the crawls are read (restarted, failed
over) is waited for, reconnecting, for up to --max-outage (30 minutes),
as scent crawl does; the read goes on after the last page it had read,
and the report is written once every crawl is read. A server away longer
ends the command with exit status 3, writing nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if every < 1 {
				return fmt.Errorf("--every must be at least 1 page, not %d", every)
			}
			ro, err := rf.options(cmd)
			if err != nil {
				return err
			}
			write, err := reportWriter(format)
			if err != nil {
				return err
			}
			th, err := parseThresholds(thresholds)
			if err != nil {
				return err
			}
			sources, err := reportSources(dbs, names)
			if err != nil {
				return err
			}
			var labelSet report.Labels // read once, to check each crawl's topics against
			if labels != "" {
				if labelSet, err = report.LoadLabels(labels); err != nil {
					return err
				}
			}
			var reps []*report.Report
			var learnts [][]urlnorm.URL
			for _, src := range sources {
				// Without labels there are no targets to hold out. What
				// the list's reading says is told once the crawl is
				// measured, not before an error that has nothing to do
				// with it.
				var learnt []urlnorm.URL
				var notice bytes.Buffer
				if labels != "" {
					if learnt, err = experiment.LearntFor(cmd.Context(), src[0], src[1], ro, trained, seeds, &notice); err != nil {
						return err
					}
				}
				learnts = append(learnts, learnt)
				rep, err := experiment.Measure(cmd.Context(), src[0], src[1], ro, labels, every, topics, scope, th, learnt)
				if err != nil {
					return err
				}
				if labels != "" {
					if err := experiment.CheckLabels(labelSet, labels, topicsOf(rep)); err != nil {
						return err
					}
				}
				io.Copy(cmd.ErrOrStderr(), &notice)
				if bfsDB != "" {
					bfs, err := experiment.Measure(cmd.Context(), bfsDB, "", ro, labels, every, topicsOf(rep), scope, th, learnt)
					if err != nil {
						return fmt.Errorf("--bfs: %w", err)
					}
					rep.Compare(bfs)
				}
				reps = append(reps, rep)
			}
			nameReports(reps, sources)
			if i := differentLearnt(learnts); i > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "report: the models of crawls %s and %s learnt from different pages (%d and %d): each crawl's recall counts its own held-out targets; give --trained or --seeds to count the same targets for all\n",
					reps[0].Crawl, reps[i].Crawl, len(learnts[0]), len(learnts[i]))
			}
			if out == "" || out == "-" {
				return write(cmd.OutOrStdout(), reps)
			}
			return writeFileAtomic(out, func(f *os.File) error { return write(f, reps) })
		},
	}
	cmd.Flags().StringSliceVar(&dbs, "db", []string{"scent.db"}, "database: a SQLite file or postgres://USER@HOST:PORT/DB (repeat to compare crawls of several databases)")
	cmd.Flags().StringSliceVar(&names, "crawl", nil, "crawl name (default: the latest crawl; repeat to compare crawls)")
	cmd.Flags().StringVar(&labels, "labels", "", "labels file: url<TAB>label per line")
	cmd.Flags().StringVar(&trained, "trained", "", "pages the model learnt from, one URL a line (trained.txt of an experiment, MODEL.trained.txt of scent train): no recall targets (default: those the crawl kept in the database, else trained.txt beside a SQLite database)")
	cmd.Flags().StringVar(&seeds, "seeds", "", "seed file whose examples the model learnt from (without --trained): no recall targets")
	cmd.Flags().StringVar(&bfsDB, "bfs", "", "database (file or postgres://…) of a breadth-first crawl from the same seeds (its latest crawl): its held-out figures and the speed-up over it are shown beside each crawl's")
	cmd.Flags().StringVar(&format, "format", "md", "json, md, html or csv")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default standard output)")
	cmd.Flags().IntVar(&every, "every", 100, "harvest-curve spacing in pages")
	cmd.Flags().StringSliceVar(&topics, "topics", nil, "topics to measure (default: the crawl's model topics; needed for a bfs crawl without model)")
	cmd.Flags().StringVar(&scope, "targets", report.ScopeCrawledHosts, "recall denominator: crawled-hosts (labelled pages on crawled hosts) or all-labels")
	cmd.Flags().StringSliceVar(&thresholds, "link-threshold", []string{strconv.FormatFloat(report.DefaultThreshold, 'g', -1, 64)},
		"link score at or above which a link is predicted relevant: a number for every topic and/or TOPIC=NUMBER")
	rf.register(cmd.Flags())
	return cmd
}

// reportWriter returns the writer of a report format.
func reportWriter(format string) (func(io.Writer, []*report.Report) error, error) {
	switch format {
	case "json":
		return func(w io.Writer, reps []*report.Report) error {
			if len(reps) == 1 {
				return reps[0].WriteJSON(w)
			}
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(reps)
		}, nil
	case "md", "markdown":
		return func(w io.Writer, reps []*report.Report) error {
			for i, r := range reps {
				if i > 0 {
					if _, err := io.WriteString(w, "\n---\n\n"); err != nil {
						return err
					}
				}
				if err := r.WriteMarkdown(w); err != nil {
					return err
				}
			}
			return nil
		}, nil
	case "html":
		return func(w io.Writer, reps []*report.Report) error { return report.WriteHTML(w, reps...) }, nil
	case "csv":
		return func(w io.Writer, reps []*report.Report) error { return report.WriteCSV(w, reps...) }, nil
	}
	return nil, fmt.Errorf("unknown --format %q (want json, md, html or csv)", format)
}

// reportSources pairs databases with crawl names ("" for the latest).
func reportSources(dbs, names []string) ([][2]string, error) {
	if len(dbs) == 0 {
		dbs = []string{"scent.db"}
	}
	if len(names) == 0 {
		names = []string{""}
	}
	var out [][2]string
	switch {
	case len(dbs) == 1:
		for _, n := range names {
			out = append(out, [2]string{dbs[0], n})
		}
	case len(names) == 1:
		for _, d := range dbs {
			out = append(out, [2]string{d, names[0]})
		}
	case len(dbs) == len(names):
		for i := range dbs {
			out = append(out, [2]string{dbs[i], names[i]})
		}
	default:
		return nil, fmt.Errorf("%d --db and %d --crawl: give one of either, or as many --crawl as --db", len(dbs), len(names))
	}
	return out, nil
}

// nameReports prefixes crawl names with their database's path (its
// shortest distinguishing tail; HOST:PORT/DB of a database URL) when two
// compared reports would otherwise carry the same name.
func nameReports(reps []*report.Report, sources [][2]string) {
	sources = slices.Clone(sources)
	for i := range sources {
		sources[i][0] = dbPath(sources[i][0])
	}
	count := make(map[string]int)
	for _, r := range reps {
		count[r.Name()]++
	}
	var clash []int
	for i, r := range reps {
		if count[r.Name()] > 1 {
			clash = append(clash, i)
		}
	}
	for k := 1; len(clash) > 0; k++ {
		tails := make(map[string]int)
		for _, i := range clash {
			tails[pathTail(sources[i][0], k)]++
		}
		done := len(tails) == len(clash)
		if done || pathTail(sources[clash[0]][0], k) == filepath.Clean(sources[clash[0]][0]) {
			for _, i := range clash {
				reps[i].Crawl = pathTail(sources[i][0], k) + ":" + reps[i].Crawl
			}
			return
		}
	}
}

// dbPath returns db, or HOST:PORT/DB for a database URL: without its
// scheme, user, password and parameters.
func dbPath(db string) string {
	if !postgres.IsURL(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres"
	}
	return u.Host + u.Path
}

// pathTail returns the last k elements of path.
func pathTail(path string, k int) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	if k < len(parts) {
		parts = parts[len(parts)-k:]
	}
	return strings.Join(parts, "/")
}

// parseThresholds reads --link-threshold entries: a bare number sets the
// threshold of every topic (key ""), TOPIC=NUMBER one topic's.
func parseThresholds(entries []string) (map[string]float64, error) {
	th := make(map[string]float64)
	for _, e := range entries {
		topic, num, ok := strings.Cut(e, "=")
		if !ok {
			topic, num = "", e
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !(v > 0 && v <= 1) {
			return nil, fmt.Errorf("--link-threshold %q: want a number in (0, 1] or TOPIC=NUMBER", e)
		}
		th[strings.TrimSpace(topic)] = v
	}
	return th, nil
}

// topicsOf returns the topics of rep.
func topicsOf(rep *report.Report) []string {
	out := make([]string, len(rep.Topics))
	for i, t := range rep.Topics {
		out[i] = t.Topic
	}
	return out
}

// buildReport measures one crawl (experiment.Measure without thresholds
// or learnt pages).
func buildReport(ctx context.Context, db, name, labelsPath string, every int, topics []string, scope string) (*report.Report, error) {
	return experiment.Measure(ctx, db, name, experiment.ReadOptions{}, labelsPath, every, topics, scope, nil, nil)
}

// differentLearnt returns the index of the first list of pages learnt
// from that is not the same set as the first list, or 0 when all are.
func differentLearnt(lists [][]urlnorm.URL) int {
	if len(lists) < 2 {
		return 0
	}
	first := make(map[urlnorm.URL]bool, len(lists[0]))
	for _, u := range lists[0] {
		first[u] = true
	}
	for i, l := range lists[1:] {
		seen := make(map[urlnorm.URL]bool, len(l))
		for _, u := range l {
			seen[u] = true
		}
		same := len(seen) == len(first)
		for u := range seen {
			same = same && first[u]
		}
		if !same {
			return i + 1
		}
	}
	return 0
}
