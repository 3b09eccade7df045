package sitenorm

import (
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

func TestClassify(t *testing.T) {
	a := Doc{Present: true, Final: urlnorm.MustParse("http://h.test/a"), Hash: "1"}
	a2 := Doc{Present: true, Final: urlnorm.MustParse("http://h.test/A"), Hash: "1"}
	b := Doc{Present: true, Final: urlnorm.MustParse("http://h.test/b"), Hash: "2"}
	none := Doc{Status: 404}
	tests := []struct {
		name   string
		p1, p2 Doc
		known  bool
		want   Outcome
	}{
		{"same document (1)", a, a2, true, NonLoss},
		{"same document, new URL (6)", a, a2, false, NonLoss},
		{"other document, known (2)", a, b, true, Loss},
		{"p2 absent (4, 9)", a, none, false, Loss},
		{"other document, new (7)", a, b, false, Change},
		{"p1 absent, known (3, 5)", none, b, true, NonLoss},
		{"gain (8)", none, b, false, Gain},
		{"both absent (10)", none, none, false, NonLoss},
	}
	for _, tt := range tests {
		if got := Classify(tt.p1, tt.p2, tt.known); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestCounts_Analogy(t *testing.T) {
	tests := []struct {
		c    Counts
		want float64
	}{
		{Counts{NonLoss: 5}, 1},
		{Counts{Loss: 1, Gain: 1, Change: 1, NonLoss: 1}, 0},
		{Counts{Loss: 1, NonLoss: 10}, 0.8830}, // one rate just above 0.9
	}
	for _, tt := range tests {
		if got := tt.c.Analogy(); math.Abs(got-tt.want) > 1e-3 {
			t.Errorf("%+v: A = %.4f, want %.4f", tt.c, got, tt.want)
		}
	}
}

func pair(host string, e urlnorm.Extension, o Outcome, direct bool) Pair {
	return Pair{Host: host, Ext: e, Outcome: o, Present: true, Direct: direct}
}

func TestRules_Observe(t *testing.T) {
	r := NewRules(Policy{Sample: 3})
	for range 3 {
		r.Observe(pair("a.test", urlnorm.EN1LowerPath, NonLoss, true))
	}
	r.Observe(pair("b.test", urlnorm.EN1LowerPath, NonLoss, true))
	if got := r.Observe(pair("b.test", urlnorm.EN1LowerPath, Loss, true)).State; got != Rejected {
		t.Errorf("after a loss: %s, want rejected", got)
	}
	if got := r.Observe(pair("c.test", urlnorm.EN3TrailingSlash, NonLoss, false)).State; got != Rejected {
		t.Errorf("served through a redirect: %s, want rejected", got)
	}
	u := urlnorm.MustParse("http://a.test/Foo/Bar.html")
	if got := r.Canonical(u).String(); got != "http://a.test/foo/bar.html" {
		t.Errorf("Canonical = %s", got)
	}
	if got := r.Canonical(urlnorm.MustParse("http://b.test/Foo")).String(); got != "http://b.test/Foo" {
		t.Errorf("Canonical on a rejecting host = %s", got)
	}
	if w := r.Wants("a.test"); len(w) != 6 {
		t.Errorf("Wants before Publish = %v: all six", w)
	}
	r.Publish()
	if w := r.Wants("a.test"); len(w) != 5 {
		t.Errorf("Wants = %v: EN1 is settled, the 5 others not", w)
	}
	if got := r.Observe(pair("a.test", urlnorm.EN1LowerPath, Loss, true)).State; got != Dropped {
		t.Errorf("a later loss: %s, want dropped", got)
	}
	if got := r.Canonical(u); got != u {
		t.Errorf("Canonical after the drop = %s", got)
	}
}

func TestRules_Allow(t *testing.T) {
	r := NewRules(Policy{})
	if r.Allow(1) {
		t.Error("a measurement before any fetch")
	}
	r.CountFetch(100)
	if r.Allow(1) {
		t.Error("allowed before Publish")
	}
	n := 0
	for r.Publish(); r.Allow(1) && n < 100; r.Publish() {
		r.Observe(Pair{Host: "h.test", Ext: urlnorm.EN1LowerPath, Fetches: 1})
		n++
	}
	if n != 5 {
		t.Errorf("%d requests allowed for 100 fetches, want 5", n)
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"http://a.test/Dir/index.html/", "http://a.test/x/INDEX.HTM?Q=1", "http://a.test/index.html/index.html/", "http://a.test/", "http://a.test/default.htm/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := urlnorm.Parse(raw)
		if err != nil {
			return
		}
		c := Canonical(u, NewRules(Policy{}).Policy().Extensions)
		if c.Origin() != u.Origin() {
			t.Fatalf("Canonical(%s) = %s changed the host", u, c)
		}
		if again := Canonical(c, NewRules(Policy{}).Policy().Extensions); again != c {
			t.Fatalf("Canonical(%s) = %s, again %s", u, c, again)
		}
		if p, err := urlnorm.Parse(c.String()); err != nil || p != c {
			t.Fatalf("Canonical(%s) = %s does not parse back to itself (%v, %s)", u, c, err, p)
		}
	})
}

func TestRules_MaxHosts(t *testing.T) {
	r := NewRules(Policy{Sample: 1, MaxHosts: 8})
	// a.test adopts EN1 first, so it is kept while hosts that adopted
	// nothing are forgotten, however long ago it was seen.
	r.Observe(pair("a.test", urlnorm.EN1LowerPath, NonLoss, true))
	for i := range 40 {
		h := fmt.Sprintf("h%d.test", i)
		if got := r.Observe(pair(h, urlnorm.EN1LowerPath, Loss, true)).State; got != Rejected {
			t.Fatalf("%s: %s, want rejected", h, got)
		}
		r.Publish()
		if n := len(r.hosts); n > 8 {
			t.Fatalf("after %d hosts: %d held, want at most 8", i+2, n)
		}
		if n := len(r.view.hosts); n > 8 {
			t.Fatalf("after %d hosts: %d published, want at most 8", i+2, n)
		}
	}
	if got := r.Canonical(urlnorm.MustParse("http://a.test/Foo")).String(); got != "http://a.test/foo" {
		t.Errorf("the host with an adopted EN was forgotten: Canonical = %s", got)
	}
	if w := r.Wants("h0.test"); len(w) != 6 {
		t.Errorf("a forgotten host wants %v, want all six measured again", w)
	}
	if w := r.Wants("h39.test"); len(w) != 5 {
		t.Errorf("the host seen last wants %v, want EN1 settled", w)
	}
	// Every host adopting: the ones seen longest ago go.
	r = NewRules(Policy{Sample: 1, MaxHosts: 4})
	for i := range 9 {
		r.Observe(pair(fmt.Sprintf("h%d.test", i), urlnorm.EN1LowerPath, NonLoss, true))
	}
	if n := len(r.hosts); n > 4 {
		t.Errorf("%d hosts held, want at most 4", n)
	}
	if r.hosts["h8.test"] == nil || r.hosts["h0.test"] != nil {
		t.Errorf("kept %v: want the hosts seen last", slices.Sorted(maps.Keys(r.hosts)))
	}
}

// BenchmarkRules_hostMemory reports the heap a host's six rules take.
func BenchmarkRules_hostMemory(b *testing.B) {
	const hosts = 10_000
	var m0, m1 runtime.MemStats
	for range b.N {
		runtime.GC()
		runtime.ReadMemStats(&m0)
		r := NewRules(Policy{Sample: 1, MaxHosts: hosts})
		for i := range hosts {
			h := fmt.Sprintf("host-%d.example.org", i)
			for _, e := range r.Policy().Extensions {
				r.Observe(pair(h, e, NonLoss, true))
			}
		}
		r.Publish()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/hosts, "B/host")
		runtime.KeepAlive(r)
	}
}
