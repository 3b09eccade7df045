package experiment

import (
	"strconv"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

// constScorer scores every link and page v for its one topic.
type constScorer struct {
	topic string
	v     float64
}

func (c constScorer) Topics() []string { return []string{c.topic} }
func (c constScorer) Score(_ []string, dst []float64) []float64 {
	return append(dst[:0], c.v)
}
func (c constScorer) ScorePage(t []string, dst []float64) []float64 { return c.Score(t, dst) }
func (c constScorer) Threshold(int) float64                         { return 0.5 }

func TestOracleScorer(t *testing.T) {
	// The department links to a people list and a news page; the list
	// links to a student's page, which links to a course page: the
	// student's page is the course's hub, the list is not (it links to
	// no course page itself).
	dir := collectiontest.WritePages(t, map[string]string{
		"department/x/http:^^h.test^":           `<a href="/people.html">people</a> <a href="/news.html">news</a>`,
		"other/x/http:^^h.test^people.html":     `<a href="/p1.html">a student</a>`,
		"student/x/http:^^h.test^p1.html":       `<a href="/c1.html">cs 101</a> <a href="/p1.html">me</a>`,
		"course/x/http:^^h.test^c1.html":        `<a href="/people.html">people</a>`,
		"other/x/http:^^h.test^news.html":       `weather`,
		"course/x/http:^^h.test^self-link.html": `<a href="/self-link.html">this page</a>`,
		"other/x/http:^^h.test^to-missing.html": `<a href="/gone.html">gone</a>`,
	})
	a, err := webkb.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	model := constScorer{"course", 0.25}
	for _, tc := range []struct {
		targets, hubs bool
		want          string // scores of the links to: /, people, p1, c1, news, self-link, gone
	}{
		{true, false, "0 0 0 1 0 1 0"},
		{false, true, "0.25 0.25 1 0.25 0.25 0.25 0.25"},
		{true, true, "0 0 1 1 0 1 0"},
	} {
		o := newOracleScorer(model, a, tc.targets, tc.hubs)
		var got []string
		for _, p := range []string{"/", "/people.html", "/p1.html", "/c1.html", "/news.html", "/self-link.html", "/gone.html"} {
			s := o.ScoreLink(urlnorm.MustParse("http://h.test"+p), []string{"x"}, nil)
			got = append(got, strconv.FormatFloat(s[0], 'g', -1, 64))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("targets %v, hubs %v: scores %s, want %s", tc.targets, tc.hubs, g, tc.want)
		}
	}
}
