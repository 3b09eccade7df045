package learn_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/urlnorm"
)

// trainingWeb serves the training pages of the lab web's topic: a
// department page linking to the people list of group A and the news
// list of group B, each linking to its four pages (A's about robots: the
// examples; B's about gardens), and to a page missing from the
// training set (/elsewhere). It returns the server, every training
// page's URL (with one that is not found and one listed twice) and the
// examples'.
func trainingWeb(t *testing.T) (*httptest.Server, []urlnorm.URL, []urlnorm.URL) {
	pages := map[string]string{
		"/dept": `<html><body><h1>department</h1><ul><li><a href="/ga/">people of group A</a> in the hall</li>
			<li><a href="/gb/">news of group B</a> in the hall</li><li><a href="/elsewhere">elsewhere</a></li></ul></body></html>`,
	}
	lists := map[string]string{"/ga/": "robot arm and robot vision", "/gb/": "garden flowers"}
	for list, text := range lists {
		body := "<html><body><ul>"
		for j := 1; j <= 4; j++ {
			p := fmt.Sprintf("%sm%d.html", list, j)
			body += fmt.Sprintf(`<li><a href="%s">member %d</a></li>`, p, j)
			pages[p] = "<html><body><p>" + text + `</p><a href="/dept">department</a></body></html>`
		}
		pages[list] = body + "</ul></body></html>"
	}
	srv := servePages(t, pages, nil)
	var all, examples []urlnorm.URL
	for p := range pages {
		u := urlnorm.MustParse(srv.URL + p)
		all = append(all, u)
		if len(p) > 4 && p[:4] == "/ga/" && p != "/ga/" {
			examples = append(examples, u)
		}
	}
	all = append(all, urlnorm.MustParse(srv.URL+"/gone.html")) // not found
	all = append(all, all[0])                                  // listed twice: read once
	return srv, all, examples
}

func trainingLinks(t *testing.T) (*httptest.Server, []learn.PriorLink, int) {
	t.Helper()
	srv, pages, examples := trainingWeb(t)
	f, err := fetch.New(fetch.Config{IgnoreRobots: true, HostParallelism: 0, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	links, n := learn.TrainingLinks(context.Background(), f, labScorer, segment.Options{}, pages, [][]urlnorm.URL{examples}, 0)
	return srv, links, n
}

func TestTrainingLinks_layersAroundTheExamples(t *testing.T) {
	srv, links, n := trainingLinks(t)
	if n != 11 {
		t.Errorf("%d training pages read, want 11 (the 12th is not found)", n)
	}
	got := make(map[string]int8)
	for _, l := range links {
		got[l.Source.String()[len(srv.URL):]+" → "+l.Target.String()[len(srv.URL):]] = l.Class[0]
		if len(l.Base) != 1 || len(l.Page) != 1 || len(l.Tokens) == 0 {
			t.Errorf("%s → %s: base %v, page %v, tokens %q", l.Source, l.Target, l.Base, l.Page, l.Tokens)
		}
	}
	want := map[string]int8{
		"/dept → /ga/": learn.PriorNext, // A's list links to the examples
		"/dept → /gb/": learn.PriorNot,
	}
	for j := 1; j <= 4; j++ {
		want[fmt.Sprintf("/ga/ → /ga/m%d.html", j)] = learn.PriorLeads
		want[fmt.Sprintf("/gb/ → /gb/m%d.html", j)] = learn.PriorNot
		want[fmt.Sprintf("/ga/m%d.html → /dept", j)] = learn.PriorNot
		want[fmt.Sprintf("/gb/m%d.html → /dept", j)] = learn.PriorNot
	}
	for k, c := range want {
		if g, ok := got[k]; !ok || g != c {
			t.Errorf("%s: class %d (found %v), want %d", k, g, ok, c)
		}
	}
	if len(links) != len(want) {
		t.Errorf("%d links counted, want %d, each once", len(links), len(want))
	}
	if len(got) != len(want) {
		t.Errorf("%d links, want %d (the link to /elsewhere, outside the training pages, left out): %v", len(got), len(want), got)
	}
}

func TestLearner_Prime(t *testing.T) {
	_, links, _ := trainingLinks(t)
	l, err := learn.New(labScorer.Topics(), learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Model(0) != nil {
		t.Fatal("a model before any evidence")
	}
	l.Prime(links, 0.5)
	var docs [3]float64
	for _, pl := range links {
		docs[pl.Class[0]] += 0.5
	}
	c := l.Counts(0)
	for class, w := range docs {
		if c.Docs(class) != w {
			t.Errorf("class %d: %v documents counted, want %v", class, c.Docs(class), w)
		}
	}
	// Too little evidence for a model (8 of each), and none is built.
	if l.Model(0) != nil {
		t.Error("a model from 4 links that lead")
	}
	for range 3 {
		l.Prime(links, 1)
	}
	if l.Model(0) == nil {
		t.Fatal("no model after 16 links that lead")
	}
	// A new link like A's list's (people) is worth more than one like
	// B's (news).
	score := func(anchor string) float64 {
		lf := &crawler.LinkFeatures{Source: urlnorm.MustParse("http://other.test/"), Target: urlnorm.MustParse("http://other.test/lab/"),
			Tokens: []string{anchor, "of", "lab", "number", "in", "the", "building"}, Anchor: []string{anchor, "of", "lab"}, Depth: 1,
			Base: []float64{0.1}, Page: []float64{0.1}}
		return l.ScoreLink(lf, nil)[0]
	}
	if p, n := score("people"), score("news"); p <= n {
		t.Errorf("primed value of a people link %.3f, of a news link %.3f: want the people link above", p, n)
	}
}

func TestLearner_primedFindsTopicSooner(t *testing.T) {
	// The lab web's people lists are anchored "people of lab N"; the
	// training pages taught that a people list leads to the topic, so
	// the primed learner goes to the people lists before it has seen
	// any of them lead anywhere. (Its four training links that lead are
	// evidence enough here: MinDocs 1.)
	const budget = 30
	_, links, _ := trainingLinks(t)
	crawl := func(w float64) int {
		srv, on := labWeb(t)
		l, err := learn.New(labScorer.Topics(), learn.Options{MinDocs: 1})
		if err != nil {
			t.Fatal(err)
		}
		if w > 0 {
			l.Prime(links, w)
		}
		cfg := crawler.Config{Workers: 4, Lockstep: true, MaxPages: budget, Learner: l}
		return topicPages(labCrawl(t, srv, filepath.Join(t.TempDir(), "crawl.db"), cfg), on)
	}
	plain, primed := crawl(0), crawl(learn.DefaultPrior)
	t.Logf("topic pages in %d fetched: learner %d, primed %d (of 24)", budget, plain, primed)
	if primed < plain+8 {
		t.Errorf("primed learner found %d topic pages in %d, unprimed %d: want at least 8 more", primed, budget, plain)
	}
}

func TestLearner_PrimeCrawl_newCrawlsOnly(t *testing.T) {
	// A new crawl counts the prior; the same crawl resumed restores the
	// evidence it saved, prior included, and does not gather it again.
	_, links, _ := trainingLinks(t)
	srv, _ := labWeb(t)
	path := filepath.Join(t.TempDir(), "crawl.db")
	calls := 0
	crawl := func(budget int) *learn.Learner {
		l, err := learn.New(labScorer.Topics(), learn.Options{Prior: func(context.Context) ([]learn.PriorLink, error) {
			calls++
			return links, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		labCrawl(t, srv, path, crawler.Config{Workers: 4, Lockstep: true, MaxPages: budget, Learner: l})
		return l
	}
	first := crawl(10)
	if calls != 1 {
		t.Fatalf("prior gathered %d times by a new crawl, want once", calls)
	}
	var primed float64
	for _, pl := range links {
		if pl.Class[0] == learn.PriorLeads {
			primed += learn.DefaultPrior
		}
	}
	if got := first.Counts(0).Docs(0); got < primed {
		t.Errorf("%v documents that lead counted, want the prior's %v at least", got, primed)
	}
	resumed := crawl(20)
	if calls != 1 {
		t.Errorf("prior gathered %d times after a resume, want once", calls)
	}
	if got := resumed.Counts(0).Docs(0); got < primed {
		t.Errorf("resumed: %v documents that lead counted, want the prior's %v at least (restored)", got, primed)
	}
}
