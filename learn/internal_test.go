package learn

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestLearner_numberedFeaturesValueAsWords: a rescore values each
// waiting link through its numbered features exactly as the model's
// Posterior values the same features as words, also after the
// vocabulary was renumbered many times (a learner that remembers 40
// links and renumbers past 60 features).
func TestLearner_numberedFeaturesValueAsWords(t *testing.T) {
	opts := Options{MinDocs: 1, MinBatch: 1, Growth: 1e-9, Memory: 40}
	small, err := New([]string{"robots"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	small.vocabularyMax = 60
	large, _ := New([]string{"robots"}, opts)
	compactions := 0
	for i := range 300 {
		e := crawler.Entry{Topic: "robots", URL: urlnorm.MustParse(fmt.Sprintf("http://h.test/p%d/", i)), Depth: 1 + i%3}
		p := &crawler.Page{URL: e.URL, FinalURL: e.URL, Depth: e.Depth, Scores: map[string]float64{"robots": float64(i%5) / 4}}
		var push []crawler.Entry
		for j := range 4 {
			u := urlnorm.MustParse(fmt.Sprintf("http://h.test/p%d/", i+1+j*7))
			p.Links = append(p.Links, crawler.Link{Target: u, Context: fmt.Sprintf("w%d lab people x%d", (i*j)%23, i), Anchor: fmt.Sprintf("a%d", j),
				Scores: []float64{float64(j) / 4}})
			push = append(push, crawler.Entry{Topic: "robots", URL: u, Depth: e.Depth + 1})
		}
		before := len(small.words.words)
		for _, l := range []*Learner{small, large} {
			l.Observe(p, e, push)
		}
		if len(small.words.words) < before {
			compactions++
		}
		checkValues(t, small, i) // with the model in use, before and after the rebuild
		a, b := small.Rescore(), large.Rescore()
		sortEntries(a)
		sortEntries(b)
		if !slices.Equal(a, b) {
			t.Fatalf("page %d: the renumbered learner moved %v, the other %v", i, a, b)
		}
		checkValues(t, small, i)
	}
	if compactions < 5 {
		t.Errorf("the vocabulary was renumbered %d times, want several", compactions)
	}
	if n, all := len(small.words.words), len(large.words.words); n > all/2 {
		t.Errorf("%d features numbered of the %d seen, want the forgotten links' features forgotten", n, all)
	}
}

// checkValues checks that l values each remembered link with its
// model in use from the link's numbered features as the model's
// Posterior does from the words.
func checkValues(t *testing.T, l *Learner, page int) {
	t.Helper()
	m := l.Model(0)
	if m == nil {
		return
	}
	for u, r := range l.links {
		if r.target != u {
			continue
		}
		f := l.words.spell(nil, r.shared)
		f = topicFeatures(f, r.topics[0].base, r.topics[0].srcRel, l.sources[r.source].class(0))
		post := m.Posterior(f, nil)
		if want, got := post[classLeads]+l.opts.Gamma*post[classNext], l.value([]*classify.Model{m}, r, 0); got != want {
			t.Fatalf("page %d, %s: value %v from numbers, %v from words", page, u, got, want)
		}
	}
}

func sortEntries(es []crawler.Entry) {
	slices.SortFunc(es, func(a, b crawler.Entry) int { return strings.Compare(a.URL.String(), b.URL.String()) })
}

// TestLearner_forgetsRedirectedPages: a link whose page was reached
// through a redirect is remembered under the page's final URL too; it is
// forgotten under both, so what the learner holds stays within Memory
// however many pages the crawl fetches.
func TestLearner_forgetsRedirectedPages(t *testing.T) {
	l, err := New([]string{"robots"}, Options{Memory: 20})
	if err != nil {
		t.Fatal(err)
	}
	parent := crawler.Entry{Topic: "robots", URL: urlnorm.MustParse("http://h.test/")}
	for i := range 500 {
		target := urlnorm.MustParse(fmt.Sprintf("http://h.test/p%d", i))
		p := &crawler.Page{URL: parent.URL, FinalURL: parent.URL, Scores: map[string]float64{"robots": 0.9},
			Links: []crawler.Link{{Target: target, Context: "robots lab", Scores: []float64{0.5}}}}
		l.Observe(p, parent, []crawler.Entry{{Topic: "robots", URL: target, Depth: 1}})
		// The link's page answers through a redirect to its final URL.
		final := urlnorm.MustParse(fmt.Sprintf("http://h.test/p%d/", i))
		e := crawler.Entry{Topic: "robots", URL: target, Depth: 1}
		l.Observe(&crawler.Page{URL: target, FinalURL: final, Depth: 1, Scores: map[string]float64{"robots": 0.9}}, e, nil)
	}
	if n := len(l.links); n > 2*20+1 {
		t.Errorf("%d links remembered after 500 redirected pages, want at most %d (Memory 20, each under two URLs)", n, 2*20+1)
	}
	if n := len(l.sources); n > 2*20+1 {
		t.Errorf("%d sources remembered, want at most %d", n, 2*20+1)
	}
}

// TestLearner_forgetsSiblingsWithTheirLinks: the outcomes of the pages
// fetched through a page's links are kept while a link of the page is
// remembered, and no longer: here each page's own link is forgotten
// before its link's target is fetched, and what the learner holds
// stays within Memory however many pages the crawl fetches.
func TestLearner_forgetsSiblingsWithTheirLinks(t *testing.T) {
	l, err := New([]string{"robots"}, Options{Memory: 20})
	if err != nil {
		t.Fatal(err)
	}
	root := crawler.Entry{Topic: "robots", URL: urlnorm.MustParse("http://h.test/")}
	page := func(e crawler.Entry, link string) {
		p := &crawler.Page{URL: e.URL, FinalURL: e.URL, Depth: e.Depth, Scores: map[string]float64{"robots": 0.9}}
		var push []crawler.Entry
		if link != "" {
			u := urlnorm.MustParse("http://h.test" + link)
			p.Links = []crawler.Link{{Target: u, Context: "robots lab", Scores: []float64{0.5}}}
			push = []crawler.Entry{{Topic: "robots", URL: u, Depth: e.Depth + 1}}
		}
		l.Observe(p, e, push)
	}
	at := func(path string, depth int) crawler.Entry {
		return crawler.Entry{Topic: "robots", URL: urlnorm.MustParse("http://h.test" + path), Depth: depth}
	}
	for k := range 500 {
		page(root, fmt.Sprintf("/p%d", k)) // the link to page k
		if k >= 5 {
			page(at(fmt.Sprintf("/p%d", k-5), 1), fmt.Sprintf("/p%d/c", k-5)) // page k-5, with its one link
		}
		if k >= 12 {
			page(at(fmt.Sprintf("/p%d/c", k-12), 2), "") // that link's target, once the link to page k-12 is forgotten
		}
	}
	if n := len(l.sources); n > 20 {
		t.Errorf("%d pages' sibling outcomes kept after 500 pages, want at most 20 (Memory)", n)
	}
	if n := len(l.links); n > 20 {
		t.Errorf("%d links remembered, want at most 20", n)
	}
}

// TestLearner_pushedValueNotItsOwn: a page that links to a target twice
// pushes the better of the two links' values, while the learner values
// the target by the first link: the store may hold another value than
// the learner's, so the link's moves are not deferred until one is
// written (Rescore). A link pushed with its own value may be deferred.
func TestLearner_pushedValueNotItsOwn(t *testing.T) {
	l, err := New([]string{"robots"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := crawler.Entry{Topic: "robots", URL: urlnorm.MustParse("http://h.test/")}
	twice, once := urlnorm.MustParse("http://h.test/twice"), urlnorm.MustParse("http://h.test/once")
	p := &crawler.Page{URL: root.URL, FinalURL: root.URL, Scores: map[string]float64{"robots": 0.9}, Links: []crawler.Link{
		{Target: twice, Context: "news", Scores: []float64{0.2}},
		{Target: once, Context: "lab", Scores: []float64{0.4}},
		{Target: twice, Context: "robots", Scores: []float64{0.9}},
	}}
	// No link model yet: a link's value is its base score.
	l.Observe(p, root, []crawler.Entry{{Topic: "robots", URL: twice, Depth: 1, Score: 0.9}, {Topic: "robots", URL: once, Depth: 1, Score: 0.4}})
	if r := l.links[twice]; r == nil || r.topics[0].score != 0.2 || !r.topics[0].pushed {
		t.Errorf("a target pushed with a better value than its first link's: record %+v, want it noted as pushed", r)
	}
	if r := l.links[once]; r == nil || r.topics[0].pushed {
		t.Errorf("a target pushed with its own value: record %+v, want it not noted as pushed", r)
	}
}

// TestLearner_memoryIntoSmallerMemory: a memory saved by a learner that
// remembers more links than the restoring one keeps the newest, with
// their pages' outcomes, and forgets them in turn as new links come.
func TestLearner_memoryIntoSmallerMemory(t *testing.T) {
	observe := func(l *Learner, i int, links ...string) {
		e := crawler.Entry{Topic: "robots", URL: urlnorm.MustParse(fmt.Sprintf("http://h.test/list%d/", i)), Depth: 1}
		p := &crawler.Page{URL: e.URL, FinalURL: e.URL, Depth: 1, Scores: map[string]float64{"robots": 0.1}}
		var push []crawler.Entry
		for _, name := range links {
			u := urlnorm.MustParse(fmt.Sprintf("http://h.test/list%d/%s.html", i, name))
			p.Links = append(p.Links, crawler.Link{Target: u, Context: name, Scores: []float64{0.1}})
			push = append(push, crawler.Entry{Topic: "robots", URL: u, Depth: 2})
		}
		l.Observe(p, e, push)
	}
	big, _ := New([]string{"robots"}, Options{MinDocs: 1, MinBatch: 1})
	for i := range 10 {
		observe(big, i, "alice", "bob")
	}
	small := restored(t, big, true, []string{"robots"}, Options{MinDocs: 1, MinBatch: 1, Memory: 4})
	if len(small.ring) != 4 || len(small.links) != 4 || len(small.sources) != 2 {
		t.Errorf("remembers %d links (%d keys) and %d pages' outcomes, want 4, 4 and 2", len(small.ring), len(small.links), len(small.sources))
	}
	if small.links[urlnorm.MustParse("http://h.test/list9/bob.html")] == nil {
		t.Error("the newest link is not kept")
	}
	for i := 10; i < 20; i++ {
		observe(small, i, "alice")
	}
	if len(small.ring) != 4 || len(small.links) != 4 || len(small.sources) != 4 {
		t.Errorf("after 10 more links: %d links (%d keys) and %d pages' outcomes remembered, want 4, 4 and 4", len(small.ring), len(small.links), len(small.sources))
	}
}

// TestLearner_memoryWhileDeferred: a memory saved while moves are
// deferred (a periodic save) holds those links at the value the store
// holds, so that the restored learner, which defers nothing yet, moves
// them at its next rescore.
func TestLearner_memoryWhileDeferred(t *testing.T) {
	l := deferringLearner()
	deferred := map[urlnorm.URL]float64{}
	for _, r := range l.ring {
		if r.topics[0].lag {
			deferred[r.target] = r.topics[0].stored
		}
	}
	if len(deferred) == 0 {
		t.Fatal("no move deferred: the test cannot tell")
	}
	back := restored(t, l, true, []string{"robots"}, Options{MinDocs: 1, MinBatch: 1, KeepWritten: 1})
	if _, ok := back.Floor("robots"); ok {
		t.Error("the restored learner defers moves it never made")
	}
	for target, stored := range deferred {
		r := back.links[target]
		if r == nil || r.topics[0].score != stored || r.topics[0].score == l.links[target].topics[0].score {
			t.Errorf("%s: restored at %v, want the store's %v (the learner's is %v)", target, r.topics[0].score, stored, l.links[target].topics[0].score)
		}
	}
}

// TestLearner_redirectToRememberedLink: a page fetched for one link and
// redirected to the URL of another remembered link (whose entry the
// store then takes off the frontier) leaves that link no longer
// waiting, its deferred move dropped, and the link that led to the page
// standing for it: the links of the page credit that one.
func TestLearner_redirectToRememberedLink(t *testing.T) {
	l := deferringLearner()
	u := func(path string) urlnorm.URL { return urlnorm.MustParse("http://h.test" + path) }
	var shadowed *record // a waiting link whose move is deferred
	for _, r := range l.ring {
		if r.waiting && r.topics[0].lag {
			shadowed = r
			break
		}
	}
	if shadowed == nil {
		t.Fatal("no move deferred: the test cannot tell")
	}
	via := l.links[u("/lab4/")]
	if via == shadowed {
		via = l.links[u("/lab5/")]
	}
	final := shadowed.target.Path()
	observeAt(l, via.target.Path(), final, 3, 0.1, map[string]string{"/robots.html": "robot arm"})
	if shadowed.waiting || shadowed.topics[0].lag {
		t.Errorf("%s, fetched through a redirect: still waiting %v, move deferred %v", final, shadowed.waiting, shadowed.topics[0].lag)
	}
	l.Deferred("robots")
	if _, ok := l.Floor("robots"); ok {
		t.Error("a move stays deferred once every deferred move was written")
	}
	observeAt(l, "/robots.html", "/robots.html", 4, 0.9, nil)
	if via.topics[0].credit != l.opts.Gamma {
		t.Errorf("the link that led to %s earned credit %v for the relevant page it links to, want %v", final, via.topics[0].credit, l.opts.Gamma)
	}
}

// TestLearner_stateKeepsRewards: a learner restored from a saved state
// counts pages as relevant at the thresholds the saving one used, not
// at its own (a resumed crawl does not choose them again).
func TestLearner_stateKeepsRewards(t *testing.T) {
	l, _ := New([]string{"robots", "gardens"}, Options{Rewards: []float64{0.3, 0}})
	data, err := l.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	back, _ := New([]string{"robots", "gardens"}, Options{})
	if err := back.RestoreState(data); err != nil {
		t.Fatal(err)
	}
	if got := []float64{back.rewardAt(0), back.rewardAt(1)}; got[0] != 0.3 || got[1] != DefaultRewardAt {
		t.Errorf("restored reward thresholds %v, want [0.3 %v]", got, DefaultRewardAt)
	}
	bad := strings.Replace(string(data), `"rewards":[0.3,0.5]`, `"rewards":[1.5,0.5]`, 1)
	if bad == string(data) {
		t.Fatal("no rewards in the state: the test cannot tell")
	}
	if err := back.RestoreState([]byte(bad)); err == nil {
		t.Error("a reward threshold of 1.5 restored")
	}
}

// observeAt feeds l the page fetched for path on h.test and answered at
// final, with page score score, whose links (target path → context)
// were pushed with the value the learner gives them before any model
// (their base score).
func observeAt(l *Learner, path, final string, depth int, score float64, links map[string]string) {
	u := func(path string) urlnorm.URL { return urlnorm.MustParse("http://h.test" + path) }
	e := crawler.Entry{Topic: "robots", URL: u(path), Depth: depth}
	p := &crawler.Page{URL: e.URL, FinalURL: u(final), Depth: depth, Scores: map[string]float64{"robots": score}}
	var push []crawler.Entry
	for target, ctx := range links {
		p.Links = append(p.Links, crawler.Link{Target: u(target), Context: ctx, Scores: []float64{0.1}})
		push = append(push, crawler.Entry{Topic: "robots", URL: u(target), Depth: depth + 1, Score: 0.1})
	}
	l.Observe(p, e, push)
}

// deferringLearner returns a learner (its best waiting link always
// written, KeepWritten 1) that has seen a department page list 20 labs,
// deeper than the survey's links, which are never deferred, and three of
// them fetched, one relevant, and has rescored: some moves are deferred.
func deferringLearner() *Learner {
	l, _ := New([]string{"robots"}, Options{MinDocs: 1, MinBatch: 1, KeepWritten: 1})
	links := map[string]string{}
	for i := range 20 {
		links[fmt.Sprintf("/lab%d/", i)] = fmt.Sprintf("lab number %d", i) + strings.Repeat(" people", i%3)
	}
	observeAt(l, "/dept/", "/dept/", 2, 0.1, links)
	observeAt(l, "/lab1/", "/lab1/", 3, 0.9, nil)
	observeAt(l, "/lab2/", "/lab2/", 3, 0.1, nil)
	observeAt(l, "/lab3/", "/lab3/", 3, 0.1, nil)
	l.Rescore()
	return l
}

// restored returns a new learner of topics with opts, restored from l's
// state, with its memory when memory is set.
func restored(t *testing.T, l *Learner, memory bool, topics []string, opts Options) *Learner {
	t.Helper()
	marshal := l.MarshalState
	if memory {
		marshal = l.MarshalMemory
	}
	data, err := marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := New(topics, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.RestoreState(data); err != nil {
		t.Fatal(err)
	}
	return back
}
