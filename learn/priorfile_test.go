package learn_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestPrior_roundTrip(t *testing.T) {
	_, links, n := trainingLinks(t)
	var buf bytes.Buffer
	if err := learn.WritePrior(&buf, "key-1", labScorer.Topics(), learn.Prior{Links: links, Pages: n}); err != nil {
		t.Fatal(err)
	}
	p, err := learn.ReadPrior(&buf, "key-1", labScorer.Topics())
	if err != nil {
		t.Fatal(err)
	}
	if p.Pages != n || len(p.Links) != len(links) {
		t.Fatalf("read %d links of %d pages, want %d of %d", len(p.Links), p.Pages, len(links), n)
	}
	for i, l := range p.Links {
		w := links[i]
		if l.Source != w.Source || l.Target != w.Target || !slices.Equal(l.Tokens, w.Tokens) || !slices.Equal(l.Anchor, w.Anchor) ||
			!slices.Equal(l.Base, w.Base) || !slices.Equal(l.Page, w.Page) || !slices.Equal(l.Class, w.Class) {
			t.Errorf("link %d read back as %+v, written %+v", i, l, w)
		}
	}
	// A learner primed from the prior read back values links as one
	// primed from the links themselves.
	primed := func(links []learn.PriorLink) *learn.Learner {
		l, err := learn.New(labScorer.Topics(), learn.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			l.Prime(links, 1)
		}
		return l
	}
	a, b := primed(links), primed(p.Links)
	for _, anchor := range []string{"people", "news", "member"} {
		lf := &crawler.LinkFeatures{Source: urlnorm.MustParse("http://other.test/"), Target: urlnorm.MustParse("http://other.test/lab/"),
			Tokens: []string{anchor, "of", "lab"}, Anchor: []string{anchor}, Depth: 1, Base: []float64{0.1}, Page: []float64{0.1}}
		if x, y := a.ScoreLink(lf, nil)[0], b.ScoreLink(lf, nil)[0]; x != y {
			t.Errorf("link %q: %v primed from the links, %v from the prior read back", anchor, x, y)
		}
	}
}

func TestReadPrior_refuses(t *testing.T) {
	const link = `{"source":"http://a.test/","target":"http://a.test/b","tokens":["b"],"base":[0.5],"page":[0.25],"class":[0]}`
	file := func(key, topics, links string) string {
		return `{"format":"scent-prior/1","key":"` + key + `","topics":` + topics + `,"pages":2,"links":[` + links + `]}`
	}
	if p, err := learn.ReadPrior(strings.NewReader(file("k", `["lab"]`, link)), "k", []string{"lab"}); err != nil || len(p.Links) != 1 || p.Pages != 2 {
		t.Fatalf("a good prior: %v, %+v", err, p)
	}
	for name, c := range map[string]struct{ in, want string }{
		"other topics":   {file("k", `["garden"]`, link), `topics ["garden"], want ["lab"]`},
		"format":         {strings.Replace(file("k", `["lab"]`, link), "scent-prior/1", "scent-prior/9", 1), `format "scent-prior/9"`},
		"cut short":      {file("k", `["lab"]`, link)[:60], "unexpected EOF"},
		"not JSON":       {"\x00\x01model", "invalid character"},
		"URL":            {file("k", `["lab"]`, strings.Replace(link, "http://a.test/b", "ftp://a.test/b", 1)), "link 1: target"},
		"URL not normal": {file("k", `["lab"]`, strings.Replace(link, "http://a.test/b", "HTTP://a.test/b", 1)), "not in normal form"},
		"score":          {file("k", `["lab"]`, strings.Replace(link, "0.25", "2", 1)), "score 2 outside [0, 1]"},
		"class":          {file("k", `["lab"]`, strings.Replace(link, `"class":[0]`, `"class":[7]`, 1)), "class 7 is none"},
		"per topic":      {file("k", `["lab"]`, strings.Replace(link, `"base":[0.5]`, `"base":[0.5,0.5]`, 1)), "2 base scores, 1 page scores and 1 classes for 1 topics"},
		"pages":          {strings.Replace(file("k", `["lab"]`, link), `"pages":2`, `"pages":-1`, 1), "-1 pages read"},
	} {
		_, err := learn.ReadPrior(strings.NewReader(c.in), "k", []string{"lab"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
		if errors.Is(err, learn.ErrPriorStale) {
			t.Errorf("%s: %v is not a stale prior", name, err)
		}
	}
	_, err := learn.ReadPrior(strings.NewReader(file("k", `["lab"]`, link)), "other key", []string{"lab"})
	if !errors.Is(err, learn.ErrPriorStale) {
		t.Errorf("a prior of another key: %v, want ErrPriorStale", err)
	}
}

func FuzzReadPrior(f *testing.F) {
	f.Add(`{"format":"scent-prior/1","key":"k","topics":["lab"],"pages":1,"links":[{"source":"http://a.test/","target":"http://a.test/b","tokens":["b"],"base":[0.5],"page":[0.25],"class":[1]}]}`)
	f.Add(`{"format":"scent-prior/1","key":"k","topics":["lab"],"pages":0,"links":[]}`)
	f.Add(`{"format":"scent-prior/1","key":"k","topics":["lab"],"links":[{"source":"http://a.test/%7e","target":"http://a.test/b","base":[1e-320],"page":[1],"class":[2]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := learn.ReadPrior(strings.NewReader(in), "k", []string{"lab"})
		if err != nil {
			return
		}
		// What is read is a prior: written again, it reads back the same.
		var buf bytes.Buffer
		if err := learn.WritePrior(&buf, "k", []string{"lab"}, p); err != nil {
			t.Fatal(err)
		}
		q, err := learn.ReadPrior(&buf, "k", []string{"lab"})
		if err != nil {
			t.Fatalf("a prior read once fails written again: %v", err)
		}
		if q.Pages != p.Pages || len(q.Links) != len(p.Links) {
			t.Fatalf("read back %d links of %d pages, want %d of %d", len(q.Links), q.Pages, len(p.Links), p.Pages)
		}
		l, err := learn.New([]string{"lab"}, learn.Options{})
		if err != nil {
			t.Fatal(err)
		}
		l.Prime(p.Links, 1)
	})
}
