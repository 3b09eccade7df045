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
