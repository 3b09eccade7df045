package crawler

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

func pu(p string) urlnorm.URL { return urlnorm.MustParse("http://a.test" + p) }

func TestPromoter_observe(t *testing.T) {
	pr := newPromoter([]string{"course", "faculty"})
	pr.remember(pu("/list"), []Entry{
		{Topic: "course", URL: pu("/a")}, {Topic: "course", URL: pu("/b")}, {Topic: "course", URL: pu("/e")},
		{Topic: "course~reserve", URL: pu("/c"), Score: 0.4}, {Topic: "faculty~reserve", URL: pu("/f")},
		{Topic: "course~reserve", URL: pu("/d"), Score: 0.3},
	})
	on := &Page{Relevant: map[string]bool{"course": true, "faculty": false}}
	off := &Page{Relevant: map[string]bool{"course": false, "faculty": false}}
	failed := &Page{Failure: "status: HTTP 404"}
	steps := []struct {
		url  string
		page *Page
		want string
	}{
		{"/a", on, "[]"},
		{"/b", failed, "[]"}, // a failed fetch says nothing about the listing
		{"/b", off, "[]"},
		{"/e", on, "[course http://a.test/c 0.4 course http://a.test/d 0.3]"}, // 2 of 3 on-topic
		{"/c", on, "[]"}, // promoted once only
	}
	for _, s := range steps {
		got := pr.observe(Entry{Topic: "course", URL: pu(s.url)}, s.page)
		var b []any
		for _, e := range got {
			b = append(b, e.Topic, e.URL.String(), e.Score)
		}
		if g := fmt.Sprint(b); g != s.want && !(len(b) == 0 && s.want == "[]") {
			t.Errorf("observe %s = %s, want %s", s.url, g, s.want)
		}
	}
	if got := pr.observe(Entry{Topic: "course", URL: pu("/unknown")}, on); got != nil {
		t.Errorf("a page no remembered page links to promoted %v", got)
	}
}

func TestPromoter_memoryIsBounded(t *testing.T) {
	pr := newPromoter([]string{"course"})
	for i := 0; i < promoteSources+10; i++ {
		pr.remember(pu(fmt.Sprintf("/p%d", i)), []Entry{{Topic: "course~reserve", URL: pu(fmt.Sprintf("/c%d", i))}})
	}
	if pr.lru.Len() != promoteSources || len(pr.by) != promoteSources || len(pr.childOf) != promoteSources {
		t.Errorf("remembered %d pages (%d, %d children), want at most %d", pr.lru.Len(), len(pr.by), len(pr.childOf), promoteSources)
	}
	if _, ok := pr.childOf[pu("/c0")]; ok {
		t.Error("the oldest page's links are still remembered")
	}
}

func TestPromoter_linksAreBounded(t *testing.T) {
	pr := newPromoter([]string{"course"})
	for i := range promoteTotal/promoteLinks + 50 {
		push := make([]Entry, promoteLinks+20)
		for j := range push {
			push[j] = Entry{Topic: "course~reserve", URL: pu(fmt.Sprintf("/p%d/c%d", i, j))}
		}
		pr.remember(pu(fmt.Sprintf("/p%d", i)), push)
		if pr.links > promoteTotal || len(pr.childOf) > promoteTotal {
			t.Fatalf("after %d pages: %d links remembered (%d children), want at most %d", i+1, pr.links, len(pr.childOf), promoteTotal)
		}
	}
	n := 0
	for el := pr.lru.Front(); el != nil; el = el.Next() {
		n += len(el.Value.(*promoteSource).children)
	}
	if n != pr.links {
		t.Errorf("counted %d links, the pages hold %d", pr.links, n)
	}
	if _, ok := pr.by[pu(fmt.Sprintf("/p%d", promoteTotal/promoteLinks+49))]; !ok {
		t.Error("the latest page was forgotten")
	}
}

// BenchmarkPromoter_linkMemory reports the heap a remembered reserve link
// takes, with URLs of a usual length, at the promoter's bound.
func BenchmarkPromoter_linkMemory(b *testing.B) {
	var m0, m1 runtime.MemStats
	for range b.N {
		runtime.GC()
		runtime.ReadMemStats(&m0)
		pr := newPromoter([]string{"course"})
		for i := range promoteTotal / promoteLinks {
			src := urlnorm.MustParse(fmt.Sprintf("http://www.cs.example.edu/people/p%d/", i))
			push := make([]Entry, promoteLinks)
			for j := range push {
				push[j] = Entry{Topic: "course~reserve", Parent: src,
					URL: urlnorm.MustParse(fmt.Sprintf("http://www.cs.example.edu/people/staff/p%d/c%d.html", i, j))}
			}
			pr.remember(src, push)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/float64(pr.links), "B/link")
		runtime.KeepAlive(pr)
	}
}
