package experiment

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/webkb"
)

// JudgeThresholds are the page scores at which JudgeEval counts verdicts.
var JudgeThresholds = []float64{0.1, 0.3, 0.5, 0.7, 0.9}

// JudgeResult is how well a model judges a topic's pages: every labelled
// HTML page of the collection outside the training group scored as a
// crawl scores a fetched page.
type JudgeResult struct {
	Topic     string
	Pages     int     // pages judged
	Positives int     // of them labelled with the topic
	AUC       float64 // P(a topic page scores above another page)
	// RPrecision is the precision among the Positives best-scored pages.
	RPrecision float64
	// JudgedAs counts the topic's pages by the class of the model that
	// finds each most probable (a topic, or a background class): a topic
	// whose pages are judged another is one the crawl cannot learn well.
	JudgedAs map[string]int
	At       []JudgeAt
}

// JudgeAt counts the verdicts at one threshold.
type JudgeAt struct {
	Threshold               float64
	TruePositives, FalsePos int
	Precision, Recall       float64
	FalseByLabel            map[string]int // false positives by their label
}

// JudgeEval scores every labelled HTML page of the collection at path that
// is not in group (the pages a model trained on group never saw) with m's
// page scores, once, and judges each of topics by them.
func JudgeEval(path string, m *classify.Model, topics []string, group string) ([]*JudgeResult, error) {
	sc := training.NewScorer(m)
	idx := make([]int, len(topics)) // each topic's class in m
	topics = slices.Clone(topics)
	for i, t := range topics {
		t = classify.NameOf(t) // a topic given by its label ("Course")
		topics[i] = t
		if !slices.Contains(sc.Topics(), t) {
			return nil, fmt.Errorf("the model has no topic %s (it has %s)", t, strings.Join(sc.Topics(), ", "))
		}
		idx[i] = m.Index(t)
	}
	a, err := webkb.Open(path)
	if err != nil {
		return nil, err
	}
	if group, err = webkb.Group(a, group); err != nil {
		return nil, err
	}
	var labels, tops []string
	var scores [][]float64 // per page, the model's scores of its classes
	classes := m.Classes()
	for _, l := range a.Labels() {
		if l.Group == group {
			continue
		}
		p, ok := a.Lookup(l.URL)
		if !ok || !p.IsHTML() {
			continue
		}
		pg, err := segment.Split(p.Body(), p.ContentType(), p.URL, sc.Segment())
		if err != nil {
			continue // not a page a crawl would judge either
		}
		post := sc.PageClasses(pg.Tokens, nil)
		labels = append(labels, classify.NameOf(l.Label))
		scores = append(scores, post)
		tops = append(tops, classes[argmax(post)])
	}
	out := make([]*JudgeResult, len(topics))
	for i, t := range topics {
		pages := make([]judged, len(labels))
		for k := range labels {
			pages[k] = judged{scores[k][idx[i]], labels[k], tops[k]}
		}
		if out[i], err = judge(pages, t, group); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// judged is one page's score for a topic, its label and the model's most
// probable class of it.
type judged struct {
	score float64
	label string
	top   string
}

// argmax returns the index of the largest of v, the first of equals.
func argmax(v []float64) int {
	best := 0
	for i := range v {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}

// judge measures how well the scores of pages tell topic's pages apart.
func judge(pages []judged, topic, group string) (*JudgeResult, error) {
	r := &JudgeResult{Topic: topic, Pages: len(pages), JudgedAs: make(map[string]int)}
	for _, p := range pages {
		if p.label == topic {
			r.Positives++
			r.JudgedAs[p.top]++
		}
	}
	if r.Positives == 0 || r.Positives == len(pages) {
		return nil, fmt.Errorf("%d of the %d pages outside group %s are labelled %s: nothing to tell apart", r.Positives, len(pages), group, topic)
	}
	sort.SliceStable(pages, func(i, j int) bool { return pages[i].score > pages[j].score })
	// AUC: each other page counts the topic pages scored above it, a tie
	// half.
	above, seen := 0.0, 0
	for i := 0; i < len(pages); {
		j, tp, other := i, 0, 0
		for ; j < len(pages) && pages[j].score == pages[i].score; j++ {
			if pages[j].label == topic {
				tp++
			} else {
				other++
			}
		}
		above += float64(other) * (float64(seen) + 0.5*float64(tp))
		seen += tp
		i = j
	}
	hits := 0
	for _, p := range pages[:r.Positives] {
		if p.label == topic {
			hits++
		}
	}
	r.AUC = above / float64(r.Positives*(len(pages)-r.Positives))
	r.RPrecision = float64(hits) / float64(r.Positives)
	for _, th := range JudgeThresholds {
		at := JudgeAt{Threshold: th, FalseByLabel: make(map[string]int)}
		for _, p := range pages {
			switch {
			case p.score < th:
			case p.label == topic:
				at.TruePositives++
			default:
				at.FalsePos++
				at.FalseByLabel[p.label]++
			}
		}
		if at.TruePositives+at.FalsePos > 0 {
			at.Precision = float64(at.TruePositives) / float64(at.TruePositives+at.FalsePos)
		}
		at.Recall = float64(at.TruePositives) / float64(r.Positives)
		r.At = append(r.At, at)
	}
	return r, nil
}

// WriteJudge writes r as a Markdown table.
func WriteJudge(w io.Writer, r *JudgeResult) error {
	fmt.Fprintf(w, "topic %s: %d pages judged, %d labelled %s; AUC %.3f, R-precision %.3f\n\n", r.Topic, r.Pages, r.Positives, r.Topic, r.AUC, r.RPrecision)
	fmt.Fprintf(w, "The %d %s pages by the class the model finds most probable: %s.\n\n", r.Positives, r.Topic, byCount(r.JudgedAs))
	fmt.Fprintln(w, "| page score ≥ | true positives | false positives | precision | recall | false positives by label |")
	fmt.Fprintln(w, "| ---: | ---: | ---: | ---: | ---: | --- |")
	for _, at := range r.At {
		fmt.Fprintf(w, "| %.1f | %d | %d | %.2f | %.2f | %s |\n", at.Threshold, at.TruePositives, at.FalsePos, at.Precision, at.Recall, byCount(at.FalseByLabel))
	}
	_, err := fmt.Fprintln(w)
	return err
}

// byCount lists the names of counts with their counts, most first, then
// by name: "student 23, faculty 14".
func byCount(counts map[string]int) string {
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := counts[b] - counts[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	by := make([]string, len(names))
	for i, n := range names {
		by[i] = fmt.Sprintf("%s %d", n, counts[n])
	}
	return strings.Join(by, ", ")
}
