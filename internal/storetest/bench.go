package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// BenchPush measures a round's pushes onto a best-first stack of 25,000
// entries, 30 links in one commit, as a learning crawl commits them:
// links new to the crawl ("new"), and links pushed again ("again": their
// entries move to the stack's top with the higher score). s holds crawl,
// a crawl of the one stack "robots"; it reports the time a link.
func BenchPush(b *testing.B, s crawler.Store, crawl int64) {
	ctx := context.Background()
	u := func(path string) urlnorm.URL { return urlnorm.MustParse("http://h.test" + path) }
	rng := rand.New(rand.NewPCG(1, 2))
	const n, batch = 25_000, 30
	es := make([]crawler.Entry, n)
	for i := range es {
		es[i] = crawler.Entry{Topic: "robots", URL: u(fmt.Sprintf("/p%d/l%d.html", i/50, i%50)), Depth: 2, Score: rng.Float64()}
	}
	for i := 0; i < n; i += 500 {
		if err := s.Commit(ctx, crawl, nil, es[i:i+500]); err != nil {
			b.Fatal(err)
		}
	}
	push := make([]crawler.Entry, batch)
	next := 0
	for _, again := range []bool{false, true} {
		name := "new"
		if again {
			name = "again"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for k := range push {
					if again {
						push[k] = es[rng.IntN(n)]
					} else {
						push[k] = crawler.Entry{Topic: "robots", URL: u(fmt.Sprintf("/new%d.html", next)), Depth: 2}
						next++
					}
					push[k].Score = rng.Float64()
				}
				if err := s.Commit(ctx, crawl, nil, push); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*batch), "µs/link")
		})
	}
}

// BenchPop measures a lockstep round's pop of 16 entries from a
// best-first stack of 25,000, as a crawl that does not guess its rounds
// pops it ("plain": Pop) and as one that does ("peek": PopPeek, reading
// the 16 entries after those it takes; skipped for a store that is no
// crawler.Peeker), and in the order of the focused crawl's survey
// ("survey": SurveyFirst, whose shallow part the stack's entries, all
// two links from a seed, leave empty, as it is for most of a crawl),
// each on a store of its own that open makes: a new database holding
// crawl, a crawl of the one stack "robots". Between pops, not timed, 16
// new entries are pushed. It reports the time a pop.
func BenchPop(b *testing.B, open func(b *testing.B) (s crawler.Store, crawl int64)) {
	const n, round = 25_000, 16
	for _, v := range []struct {
		name  string
		peek  int
		order crawler.Order
	}{{"plain", 0, crawler.BestFirst}, {"peek", round, crawler.BestFirst}, {"survey", 0, crawler.SurveyFirst}} {
		peek := v.peek
		b.Run(v.name, func(b *testing.B) {
			ctx := context.Background()
			s, crawl := open(b)
			pk, peeks := s.(crawler.Peeker)
			if peek > 0 && !peeks {
				b.Skipf("%T does not peek (crawler.Peeker)", s)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			es := make([]crawler.Entry, 500)
			next := 0
			fill := func(k int) {
				for i := range k {
					es[i] = crawler.Entry{Topic: "robots", URL: urlnorm.MustParse(fmt.Sprintf("http://h.test/p%d.html", next)), Depth: 2, Score: rng.Float64()}
					next++
				}
				if err := s.Commit(ctx, crawl, nil, es[:k]); err != nil {
					b.Fatal(err)
				}
			}
			for range n / len(es) {
				fill(len(es))
			}
			for b.Loop() {
				var taken, seen []crawler.Entry
				var err error
				if peek > 0 {
					taken, seen, err = pk.PopPeek(ctx, crawl, "robots", crawler.BestFirst, round, 0, peek)
				} else {
					taken, err = s.Pop(ctx, crawl, "robots", v.order, round, 0)
				}
				if err != nil || len(taken) != round || len(seen) != peek {
					b.Fatalf("pop: %d taken, %d seen, %v", len(taken), len(seen), err)
				}
				b.StopTimer()
				fill(round)
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/pop")
		})
	}
}
