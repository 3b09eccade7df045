package training

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/segment"
)

// trainModel trains a model of two topics, named out of sorted order, and
// the background class from the words of the test site.
func trainModel(t testing.TB) *classify.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	var ex []classify.Example
	for _, c := range []string{"faculty", "other", "course"} {
		for range 20 {
			var toks []string
			for range 15 {
				if r.IntN(10) < 7 {
					toks = append(toks, classWords[c][r.IntN(6)])
				} else {
					toks = append(toks, fillerWords[r.IntN(6)])
				}
			}
			ex = append(ex, classify.Example{Class: c, Tokens: toks})
		}
	}
	m, err := classify.Train(ex, classify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewScorer(t *testing.T) {
	m := trainModel(t)
	if err := m.SetThreshold("faculty", 0.5); err != nil {
		t.Fatal(err)
	}
	s := NewScorer(m)
	if got := s.Topics(); !slices.Equal(got, []string{"course", "faculty"}) {
		t.Fatalf("Topics = %v, want [course faculty] (no %q)", got, classify.Other)
	}
	if got := s.Threshold(0); got != classify.DefaultThreshold {
		t.Errorf("Threshold(0) = %v, want %v", got, classify.DefaultThreshold)
	}
	if got := s.Threshold(1); got != 0.5 {
		t.Errorf("Threshold(1) = %v, want 0.5", got)
	}
}

func TestScorer_Score(t *testing.T) {
	m := trainModel(t)
	s := NewScorer(m)
	tests := []struct {
		text string
		best string // topic with the highest posterior; "" when other wins
	}{
		{"syllabus homework exam", "course"},
		{"professor research phd", "faculty"},
		{"weather football recipe", ""},
		{"", ""},
		{"unknown words only", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			toks := strings.Fields(tt.text)
			got := s.Score(toks, nil)
			post := m.Posterior(toks, nil)
			if len(got) != len(s.Topics()) {
				t.Fatalf("Score = %v, want %d values", got, len(s.Topics()))
			}
			for i, topic := range s.Topics() {
				if want := post[m.Index(topic)]; got[i] != want {
					t.Errorf("Score[%d] (%s) = %v, Posterior gives %v", i, topic, got[i], want)
				}
			}
			if tt.best != "" {
				i := slices.Index(s.Topics(), tt.best)
				if got[i] < 0.9 {
					t.Errorf("P(%s) = %v, want ≥ 0.9", tt.best, got[i])
				}
			} else if tt.text != "" && tt.text != "unknown words only" && got[0]+got[1] > 0.1 {
				t.Errorf("topic posteriors %v of an off-topic text", got)
			}
		})
	}

	// dst is reused when its capacity suffices.
	dst := make([]float64, 0, 4)
	got := s.Score([]string{"lecture"}, dst)
	if &got[0] != &dst[:1][0] {
		t.Error("Score did not write into dst")
	}
	if allocs := testing.AllocsPerRun(100, func() { s.Score([]string{"lecture", "phd"}, dst) }); allocs != 0 && !raceEnabled {
		t.Errorf("Score with a destination allocates %v times", allocs)
	}
}

// TestScorer_concurrent scores from many goroutines at once; run with
// -race. Every result must equal the one computed alone.
func TestScorer_concurrent(t *testing.T) {
	m := trainModel(t)
	s := NewScorer(m)
	vocab := slices.Concat(classWords["course"], classWords["faculty"], classWords["other"], fillerWords)
	r := rand.New(rand.NewPCG(5, 6))
	docs := make([][]string, 64)
	want := make([][]float64, len(docs))
	for i := range docs {
		for range 1 + r.IntN(30) {
			docs[i] = append(docs[i], vocab[r.IntN(len(vocab))])
		}
		want[i] = s.Score(docs[i], nil)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			var dst []float64
			for k := range 200 {
				i := (g*31 + k) % len(docs)
				dst = s.Score(docs[i], dst)
				if !slices.Equal(dst, want[i]) {
					errs <- "concurrent Score differs"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func BenchmarkScorer_Score(b *testing.B) {
	s := NewScorer(trainModel(b))
	toks := strings.Fields("the course syllabus lists homework for each lecture and the final exam of the instructor")
	dst := make([]float64, 0, 2)
	b.ReportAllocs()
	for b.Loop() {
		dst = s.Score(toks, dst)
	}
}

func TestScorer_ScorePage(t *testing.T) {
	m := trainModel(t)
	page := func(n int) []string {
		var toks []string
		for i := range n {
			toks = append(toks, classWords["course"][i%6])
		}
		return toks
	}
	// A model without windows metadata scores the page at once.
	s := NewScorer(m)
	long := page(100)
	if got, want := s.ScorePage(long, nil), s.Score(long, nil); !slices.Equal(got, want) {
		t.Errorf("pages model: ScorePage = %v, want Score %v", got, want)
	}
	// A windows model averages its windows: 2·n+3 = 5 tokens for n = 1,
	// the 100-token page has 20 windows.
	m.SetMeta(MetaDocuments, string(DocWindows))
	m.SetMeta(MetaWindow, "1")
	s = NewScorer(m)
	got := s.ScorePage(long, nil)
	want := make([]float64, len(s.Topics()))
	for i := 0; i < 100; i += 5 {
		for k, v := range s.Score(long[i:i+5], nil) {
			want[k] += v / 20
		}
	}
	for k := range want {
		if d := got[k] - want[k]; d > 1e-12 || d < -1e-12 {
			t.Errorf("windows model, topic %s: ScorePage = %v, want the mean of the windows %v", s.Topics()[k], got[k], want[k])
		}
	}
	if c := s.m.Index("course"); got[slices.Index(s.Topics(), "course")] < 0.9 {
		t.Errorf("a page of course words scores %v for course (class %d)", got, c)
	}
	// A page no longer than a window is one window.
	short := page(4)
	if got, want := s.ScorePage(short, nil), s.Score(short, nil); !slices.Equal(got, want) {
		t.Errorf("short page: %v, want %v", got, want)
	}
	// PageClasses scores every class of the model as ScorePage scores the
	// topics, and its classes sum to 1.
	for _, toks := range [][]string{long, short} {
		all, topics := s.PageClasses(toks, nil), s.ScorePage(toks, nil)
		if len(all) != len(m.Classes()) {
			t.Fatalf("PageClasses gives %d scores for %d classes", len(all), len(m.Classes()))
		}
		sum := 0.0
		for _, v := range all {
			sum += v
		}
		if sum < 1-1e-9 || sum > 1+1e-9 {
			t.Errorf("PageClasses %v sums to %v", all, sum)
		}
		for k, topic := range s.Topics() {
			if d := all[m.Index(topic)] - topics[k]; d > 1e-12 || d < -1e-12 {
				t.Errorf("%d tokens, topic %s: PageClasses %v, ScorePage %v", len(toks), topic, all[m.Index(topic)], topics[k])
			}
		}
	}
}

// TestSegmentOf reads back the segmentation Build records: the default
// for a model without one, else its window and URL words.
func TestSegmentOf(t *testing.T) {
	m := trainModel(t)
	if got := NewScorer(m).Segment(); got != (segment.Options{Window: segment.DefaultWindow}) {
		t.Errorf("model without a record: %+v, want the default window", got)
	}
	m.SetMeta(MetaWindow, "20")
	m.SetMeta(MetaURLTokens, "true")
	if got, want := SegmentOf(m), (segment.Options{Window: 20, URLTokens: true}); got != want || NewScorer(m).Segment() != want {
		t.Errorf("SegmentOf = %+v, want %+v", got, want)
	}
	built, err := trainWithMeta([]classify.Example{{Class: "course", Tokens: []string{"a"}}, {Class: classify.Other, Tokens: []string{"b"}}},
		Options{Segment: segment.Options{Window: 5, URLTokens: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := SegmentOf(built), (segment.Options{Window: 5, URLTokens: true}); got != want {
		t.Errorf("SegmentOf a built model = %+v, want %+v", got, want)
	}
}
