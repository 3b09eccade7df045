package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/training"
)

func newTrainCmd() *cobra.Command {
	var (
		ff      fetchFlags
		mf      modelFlags
		seeds   string
		model   string
		jsonOut string
	)
	cmd := &cobra.Command{
		Use:   "train --seeds FILE --model FILE",
		Short: "Learn topics from the example pages of a seed file",
		Long: `train fetches the example pages named in a seed file (through the same
fetcher as a crawl, so --proxy and robots.txt apply), selects features by χ²,
trains the Naive Bayes model and prints, per topic, the documents, the top 30
features and the cross-validated precision and recall of page and segment
classification. With --page-judge (the default) it also trains the page
judge, the model that judges the pages a crawl fetches (whole pages, every
topic and every kind of page of the seed file a class of its own), and
writes it beside the model (MODEL.page.json). It also keeps there the links
between the training pages (MODEL.prior.json), from which a crawl with the
model primes its link learner without fetching the training pages again; a
crawl with other models or other training pages fetches them. Model tuning
lives here: a crawl trains its own models with the default settings, so a
tuned model is trained here and given to scent crawl with --model.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if seeds == "" || model == "" {
				return fmt.Errorf("--seeds and --model are required")
			}
			if err := validateTrain(&ff, &mf, model, jsonOut); err != nil {
				return err
			}
			s, err := training.LoadSeeds(seeds)
			if err != nil {
				return err
			}
			f, err := fetch.New(ff.config())
			if err != nil {
				return err
			}
			defer f.Close()
			// The models' training and the learner's prior read the same
			// pages: each is fetched once.
			examples := experiment.NewFetchCache(f)
			defer examples.Release()
			t, err := trainModels(cmd.Context(), s, examples, &mf, cmd.ErrOrStderr(), nil)
			if err != nil {
				return err
			}
			// Everything is read before the first file is written, and
			// the model is written last: an interrupted train leaves the
			// files of the one before it, or no model.
			prior, priorLine, err := encodePrior(cmd.Context(), model, t, s, examples)
			if err != nil {
				return err
			}
			learnt, err := experiment.LearntOf(cmd.Context(), s, &mf.Settings, nil)
			if err != nil {
				return err
			}
			err = saveModels(model, t, func() error {
				return writeFileAtomic(experiment.PriorPathFor(model), func(f *os.File) error {
					_, err := f.Write(prior)
					return err
				})
			}, func() error {
				return experiment.WriteTrained(experiment.TrainedPathFor(model), learnt)
			})
			if err != nil {
				return err
			}
			printTrainReport(cmd.OutOrStdout(), t.report, trainReportFlag)
			printJudgeReport(cmd.OutOrStdout(), t.judgeRep)
			printRewards(cmd.OutOrStdout(), t)
			fmt.Fprintf(cmd.OutOrStdout(), "model written to %s\n", model)
			if t.judge != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "page judge written to %s\n", experiment.PagePathFor(model))
			}
			fmt.Fprintln(cmd.OutOrStdout(), priorLine)
			if jsonOut != "" {
				return writeFileAtomic(jsonOut, func(f *os.File) error {
					enc := json.NewEncoder(f)
					enc.SetIndent("", "  ")
					return enc.Encode(t.report)
				})
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&seeds, "seeds", "", "seed file (see README)")
	fs.StringVar(&model, "model", "", "where to write the model")
	fs.StringVar(&jsonOut, "report-json", "", "also write the training report as JSON to this file")
	ff.register(fs)
	mf.register(fs)
	setFlagGroup(fs, "input", "seeds")
	setFlagGroup(fs, "output", "model", "report-json")
	return cmd
}

// trained is what training from a seed file gives: the model of links
// and, with --page-judge, the page judge, each with its report.
type trained struct {
	model, judge     *classify.Model
	report, judgeRep *training.Report
}

// rewards returns the model that records the link learner's reward
// thresholds: the page judge when there is one.
func (t trained) rewards() *classify.Model {
	if t.judge != nil {
		return t.judge
	}
	return t.model
}

// trainModels trains the model of the seeds' examples and, with
// --page-judge, the page judge (every topic and kind of page of the
// seeds a class: training.Seeds.PageSeeds, experiment.PageSettings);
// with cross-validation, it also chooses the link learner's reward
// thresholds from each model's cross-validated page F1 and records them
// in it (experiment.RecordRewards): a crawl takes the page judge's when
// it judges pages with it, the model's otherwise.
func trainModels(ctx context.Context, s *training.Seeds, f training.Fetcher, mf *modelFlags, progress io.Writer, src training.BacklinkSource) (trained, error) {
	if mf.Folds >= 2 {
		mf.CVThresholds = experiment.WithRewardGrid(mf.CVThresholds)
	}
	var t trained
	var err error
	if t.model, t.report, err = experiment.TrainModelWith(ctx, s, f, &mf.Settings, progress, src); err != nil {
		return t, err
	}
	if mf.pageJudge {
		ps, pages := experiment.PageSettings(mf.Settings), s.PageSeeds()
		fmt.Fprintf(progress, "training the page judge: %s, each a class of its own …\n", strings.Join(pages.Topics, ", "))
		if t.judge, t.judgeRep, err = experiment.TrainModelWith(ctx, pages, f, &ps, progress, nil); err != nil {
			return t, fmt.Errorf("page judge: %w", err)
		}
	}
	if mf.Folds >= 2 {
		experiment.RecordRewards(t.model, t.report)
		if t.judge != nil {
			experiment.RecordRewards(t.judge, t.judgeRep)
		}
	}
	return t, nil
}

// saveModels writes t's models and what goes with them: the page judge
// beside path (experiment.PagePathFor), or no judge file there when t
// has none (so that an older judge does not outlive its model), then
// each of companions, then the model at path, last, so that a process
// killed midway never leaves a model without what goes with it. A model
// file at path from before is removed first: it would stand beside the
// judge and companions of another.
func saveModels(path string, t trained, companions ...func() error) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	judge := experiment.PagePathFor(path)
	if t.judge == nil {
		if err := os.Remove(judge); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	} else if err := experiment.SaveModel(judge, t.judge); err != nil {
		return err
	}
	for _, c := range companions {
		if err := c(); err != nil {
			return err
		}
	}
	return experiment.SaveModel(path, t.model)
}

// loadModel reads the model file at path and checks what it records
// besides the classifier (training.CheckMeta, experiment.CheckRewards), so
// that a damaged field is refused naming the file rather than ignored.
func loadModel(path string) (*classify.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	m, err := classify.Load(f)
	if err == nil {
		err = checkModel(m)
	}
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	return m, nil
}

// checkModel checks what a loaded model records for the crawl: its
// window (training.CheckMeta) and the learner's reward thresholds
// (experiment.CheckRewards).
func checkModel(m *classify.Model) error {
	if err := training.CheckMeta(m); err != nil {
		return err
	}
	return experiment.CheckRewards(m)
}

// printRewards prints the link learner's reward thresholds recorded in
// t's model that judges pages (trained.rewards), for the topics of t's
// model of links, if any.
func printRewards(w io.Writer, t trained) {
	ths := experiment.RecordedRewards(t.rewards(), t.model.Topics())
	var pairs []string
	for i, th := range ths {
		if th > 0 {
			pairs = append(pairs, fmt.Sprintf("%s=%g", t.model.Topics()[i], th))
		}
	}
	if len(pairs) > 0 {
		fmt.Fprintf(w, "link learner's reward thresholds (best cross-validated page F1): %s\n", strings.Join(pairs, ", "))
	}
}

// features says how many features a model of rep kept, and, when the
// least χ² kept fewer than --k, that more examples would give more.
func features(rep *training.Report) string {
	s := fmt.Sprintf("%d features", rep.Terms)
	if rep.MinChi2 > 0 && rep.Terms < rep.K {
		s += fmt.Sprintf(" (those whose χ² reaches %g, fewer than --k %d: more examples and negatives tell more words apart)", rep.MinChi2, rep.K)
	}
	return s
}

// printJudgeReport prints the page judge's classes and their
// cross-validated page precision and recall, when there is a judge.
func printJudgeReport(w io.Writer, rep *training.Report) {
	if rep == nil {
		return
	}
	fmt.Fprintf(w, "\npage judge: %d classes and %d negative document(s); %s\n", len(rep.Topics), rep.Other, features(rep))
	for _, t := range rep.Topics {
		line := fmt.Sprintf("  %s: %d documents", t.Name, t.Documents)
		if rep.Page != nil {
			if ts, ok := rep.Page.Topic(t.Name); ok {
				line += fmt.Sprintf(", %d-fold CV: precision %.3f recall %.3f F1 %.3f", rep.Folds, ts.Precision, ts.Recall, ts.F1)
			}
		}
		fmt.Fprintln(w, line)
	}
}

// Where the summary of unusable examples, past ten, says all are
// listed: train's own flag, and for crawl, which has no such flag, train
// with it.
const (
	trainReportFlag = "--report-json"
	crawlReportFlag = "scent train --report-json"
)

// printTrainReport prints rep's summary: the examples that could not be
// used, and each topic's features and cross-validated scores. full is
// where all unusable examples are listed (trainReportFlag or
// crawlReportFlag, for the command that prints).
func printTrainReport(w io.Writer, rep *training.Report, full string) {
	fmt.Fprintf(w, "trained on %d topic(s) and %d negative document(s); %s\n", len(rep.Topics), rep.Other, features(rep))
	if len(rep.Failed) > 0 {
		fmt.Fprintf(w, "%d example(s) could not be used:\n", len(rep.Failed))
		// Local files first: a missing one is the seed file's mistake,
		// not the web's; past ten, the rest counted by reason.
		failed := slices.Clone(rep.Failed)
		remote := func(f training.Failure) int {
			if strings.Contains(f.Source, "://") {
				return 1
			}
			return 0
		}
		slices.SortStableFunc(failed, func(a, b training.Failure) int { return remote(a) - remote(b) })
		for i, f := range failed {
			if i == 10 {
				reasons := map[string]int{}
				for _, f := range failed[10:] {
					reasons[reasonKind(f.Reason)]++
				}
				var parts []string
				for _, r := range slices.Sorted(maps.Keys(reasons)) {
					parts = append(parts, fmt.Sprintf("%d %s", reasons[r], r))
				}
				fmt.Fprintf(w, "  … and %d more (%s; all in %s)\n", len(failed)-10, strings.Join(parts, ", "), full)
				break
			}
			fmt.Fprintf(w, "  %s: %s\n", f.Source, f.Reason)
		}
	}
	for _, t := range rep.Topics {
		fmt.Fprintf(w, "\ntopic %s: %d documents, %d backlink segments\n  top features (χ²):", t.Name, t.Documents, t.Backlinks)
		for i, f := range t.Features {
			if i%5 == 0 {
				fmt.Fprint(w, "\n   ")
			}
			fmt.Fprintf(w, " %s %.1f", f.Term, f.Chi2)
		}
		fmt.Fprintln(w)
		if rep.Page != nil {
			if ts, ok := rep.Page.Topic(t.Name); ok {
				fmt.Fprintf(w, "  pages,    %d-fold CV: precision %.3f recall %.3f F1 %.3f (%d documents)\n", rep.Folds, ts.Precision, ts.Recall, ts.F1, ts.Support)
			}
		}
		if rep.Segment != nil {
			if ts, ok := rep.Segment.Topic(t.Name); ok {
				fmt.Fprintf(w, "  segments, %d-fold CV: precision %.3f recall %.3f F1 %.3f (%d labelled links)\n", rep.Folds, ts.Precision, ts.Recall, ts.F1, ts.Support)
			}
		} else {
			fmt.Fprintf(w, "  segments: no labelled links (no example links to another example)\n")
		}
	}
}

// encodePrior reads the links between the training pages of s through
// examples, from which a crawl with t's models (to be saved at path)
// primes its link learner (experiment.EncodePrior), so that
// the crawl need not fetch every training page again. It returns them
// encoded, to be written to experiment.PriorPathFor(path), and the line
// that says where.
func encodePrior(ctx context.Context, path string, t trained, s *training.Seeds, examples *experiment.FetchCache) ([]byte, string, error) {
	cm, err := newCrawlModel(path, t, nil)
	if err != nil {
		return nil, "", err
	}
	key, err := savedKey(t, s, cm.scorer.Topics())
	if err != nil {
		return nil, "", err
	}
	b, links, pages, err := experiment.EncodePrior(ctx, key, s, cm.scorer, examples, cm.links.Segment(), learn.DefaultPriorFetchers)
	if err != nil {
		return nil, "", fmt.Errorf("learner prior: %w", err)
	}
	return b, fmt.Sprintf("learner prior written to %s: %d links between %d training pages", experiment.PriorPathFor(path), links, pages), nil
}

// reasonKind names the kind of a training page's failure for a count by
// kind: its innermost cause ("status 404 Not Found" of "fetch
// http://a.test/x: status 404 Not Found"), or what comes before the
// first colon of a reason that gives its kind first ("no text: …",
// "robots: …").
func reasonKind(reason string) string {
	kind, _, ok := strings.Cut(reason, ": ")
	switch {
	case !ok:
		return reason
	case kind == "no text" || !strings.Contains(kind, " "):
		return kind // a reason that names its kind first
	}
	return reason[strings.LastIndex(reason, ": ")+2:]
}
