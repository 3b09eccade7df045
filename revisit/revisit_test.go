package revisit_test

import (
	"testing"
	"time"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/revisit"
	"github.com/scent-crawler/scent/revisit/revisittest"
)

// TestMemStore_behaviour runs the revisit suite, which the SQLite and
// PostgreSQL stores pass too, on the in-memory reference store.
func TestMemStore_behaviour(t *testing.T) {
	revisittest.Run(t, func(*testing.T) revisittest.Store { return revisittest.NewMemStore() })
}

func TestConfig_Validate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  revisit.Config
		ok   bool
	}{
		{"minimal", revisit.Config{Crawl: 1}, true},
		{"paper costs", revisit.Config{Crawl: 1, OlderThan: time.Hour, Costs: change.DefaultCosts(), Workers: 8}, true},
		{"no crawl", revisit.Config{}, false},
		{"negative age", revisit.Config{Crawl: 1, OlderThan: -time.Second}, false},
		{"negative workers", revisit.Config{Crawl: 1, Workers: -1}, false},
		{"cost above 1", revisit.Config{Crawl: 1, Costs: change.Costs{S: 1.5}}, false},
		{"negative move cost", revisit.Config{Crawl: 1, Costs: change.Costs{T: -0.1}}, false},
		{"negative progress interval", revisit.Config{Crawl: 1, ProgressEvery: -time.Second}, false},
	} {
		if err := tc.cfg.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestConditional(t *testing.T) {
	for _, tc := range []struct {
		page           revisit.Page
		inm, ims       string
		wantHeaderKeys int
	}{
		{revisit.Page{}, "", "", 0},
		{revisit.Page{ETag: `"x"`}, `"x"`, "", 1},
		{revisit.Page{Modified: "Mon, 04 Mar 2024 08:00:00 GMT"}, "", "Mon, 04 Mar 2024 08:00:00 GMT", 1},
		{revisit.Page{ETag: `W/"y"`, Modified: "Tue, 05 Mar 2024 08:00:00 GMT"}, `W/"y"`, "Tue, 05 Mar 2024 08:00:00 GMT", 2},
	} {
		h := revisit.Conditional(tc.page)
		if h.Get("If-None-Match") != tc.inm || h.Get("If-Modified-Since") != tc.ims || len(h) != tc.wantHeaderKeys {
			t.Errorf("Conditional(%+v) = %v, want If-None-Match %q, If-Modified-Since %q", tc.page, h, tc.inm, tc.ims)
		}
	}
}
