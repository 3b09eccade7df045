package crawler

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

func guessURL(p string) urlnorm.URL { return urlnorm.MustParse("http://g.test/" + p) }

func guessPaths(es []Entry) string {
	var out []string
	for _, e := range es {
		out = append(out, strings.TrimPrefix(e.URL.String(), "http://g.test/"))
	}
	return strings.Join(out, " ")
}

// TestGuesser: a guess is the first entries of the stack as the store
// orders them once the round's pushes and the learner's moves are
// applied, without the URLs popped or fetched; from a fallback stack
// when the topic's own is empty.
func TestGuesser(t *testing.T) {
	e := func(stack, p string, depth int, score float64) Entry {
		return Entry{Topic: stack, URL: guessURL(p), Depth: depth, Score: score}
	}
	g := newGuesser(BestFirst, 4)
	// The last pop of t took a and saw b, c next (in the store's order).
	g.popped("t", []Entry{e("t", "a", 2, 0.9)}, []Entry{e("t", "b", 2, 0.5), e("t", "c", 2, 0.5)})
	if got := guessPaths(g.guess("t", nil, 4)); got != "b c" {
		t.Errorf("guess = %q, want the pool: b c", got)
	}
	// A push of a new URL at b's score goes above b (pushed later); a
	// push of c again takes the higher score and moves to the top; a
	// push of a, popped, is left out; a move lowers b.
	g.absorb([]Entry{e("t", "d", 3, 0.5), e("t", "c", 1, 0.4), e("t", "a", 2, 1)}, []Entry{e("t", "b", 0, 0.1)})
	if got := guessPaths(g.guess("t", nil, 4)); got != "c d b" {
		t.Errorf("guess after pushes and moves = %q, want c d b", got)
	}
	if c := g.pools["t"][0].e; c.Depth != 1 || c.Score != 0.5 {
		t.Errorf("c pushed again = %+v, want depth 1 (the smaller) and score 0.5 (the higher)", c)
	}
	// At most n; a fetched page's URL is left out.
	g.committed(&Page{URL: guessURL("c"), FinalURL: guessURL("c")})
	if got := guessPaths(g.guess("t", nil, 1)); got != "d" {
		t.Errorf("guess of one after c was fetched = %q, want d", got)
	}
	// An empty stack: its fallback, served shallowest first, for the
	// topic.
	g.popped("t", []Entry{e("t", "d", 3, 0.5), e("t", "b", 2, 0.1)}, nil)
	g.absorb([]Entry{e("t~parts", "deep", 5, 0.9), e("t~parts", "near", 2, 0.1)}, nil)
	es := g.guess("t", []string{"t~parts"}, 4)
	if got := guessPaths(es); got != "near deep" || es[0].Topic != "t" {
		t.Errorf("guess from the fallback = %q (topic %q), want near deep for t", got, es[0].Topic)
	}
	// Survey order: the shallow entries first, then by score.
	s := newGuesser(SurveyFirst, 4)
	s.absorb([]Entry{e("t", "deep", 2, 0.9), e("t", "shallow", 1, 0.1)}, nil)
	if got := guessPaths(s.guess("t", nil, 2)); got != "shallow deep" {
		t.Errorf("survey guess = %q, want shallow deep", got)
	}
}

// TestKeptFetches: an answer is kept for every later fetch of its URL,
// each given its own copy of the result; the oldest go first when the
// bounds are reached.
func TestKeptFetches(t *testing.T) {
	ctx := context.Background()
	k := newKeptFetches()
	for i := range keptMax + 1 {
		k.put(guessURL(fmt.Sprintf("p%d", i)), answer{})
	}
	if len(k.m) != keptMax || len(k.order) != keptMax {
		t.Fatalf("%d answers kept (%d in order), want %d", len(k.m), len(k.order), keptMax)
	}
	first := guessURL("p0")
	if _, ok := k.ask(ctx, first); ok {
		t.Errorf("the oldest answer is still kept")
	}
	k.answered(ctx, first, answer{}) // no answer: nothing kept
	u := guessURL("fresh")
	k.put(u, answer{res: &fetch.Result{Status: 200}})
	a, ok := k.ask(ctx, u)
	if !ok || a.res.Status != 200 {
		t.Fatalf("a new answer is not kept: %+v, %v", a, ok)
	}
	a.res.Status = 500
	if b, ok := k.ask(ctx, u); !ok || b.res.Status != 200 {
		t.Errorf("a second fetch got %+v, %v: want the kept answer, unchanged by the first", b, ok)
	}
}
