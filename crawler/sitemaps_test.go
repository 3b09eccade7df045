package crawler_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

func gzipped(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func TestCrawler_Run_sitemaps(t *testing.T) {
	// No page links to the course page: only a sitemap (behind an index,
	// gzipped) lists it. Two other sitemaps of robots.txt are refused, one
	// malformed, one of more than 10 MiB; the crawl goes on.
	base := func(r *http.Request) string { return "http://" + r.Host }
	long := "<url><loc>http://x.test/" + strings.Repeat("p", 2000) + "</loc></url>"
	huge := gzipped("<urlset>" + strings.Repeat(long, 11<<20/len(long)) + "</urlset>")
	write := func(ct string, body func(r *http.Request) []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Write(body(r))
		}
	}
	s := crawlertest.NewSite(t, map[string]string{
		"/":                         `<html><body><p>Welcome to the department. <a href="/news">news</a></p></body></html>`,
		"/news":                     `<html><body>Nothing here.</body></html>`,
		"/courses/databases.html":   `<html><body>Course on databases: syllabus and homework.</body></html>`,
		"/misc/photos-of-cats.html": `<html><body>cats</body></html>`,
	}, map[string]http.HandlerFunc{
		"/robots.txt": write("text/plain", func(r *http.Request) []byte {
			return []byte("User-agent: *\nAllow: /\nSitemap: " + base(r) + "/broken.xml\nSitemap: " + base(r) + "/huge.xml.gz\n")
		}),
		"/sitemap.xml": write("application/xml", func(r *http.Request) []byte {
			return []byte(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
				`<sitemap><loc>` + base(r) + `/pages.xml.gz</loc></sitemap></sitemapindex>`)
		}),
		"/pages.xml.gz": write("application/gzip", func(r *http.Request) []byte {
			return gzipped(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
				`<url><loc>` + base(r) + `/misc/photos-of-cats.html</loc></url>` +
				`<url><loc>` + base(r) + `/courses/databases.html</loc><lastmod>2026-01-05</lastmod></url></urlset>`)
		}),
		"/broken.xml":  write("application/xml", func(*http.Request) []byte { return []byte("<urlset><url><loc>http://") }),
		"/huge.xml.gz": write("application/gzip", func(*http.Request) []byte { return huge }),
	})
	scorer := crawlertest.NewKeywordScorer(map[string][]string{"course": {"course", "courses", "syllabus", "homework"}}, "course")
	for _, on := range []bool{false, true} {
		st := openStore(t)
		c, err := crawler.New(crawler.Config{Workers: 2, Sitemaps: on}, st, crawlertest.NewFetcher(t, fetch.Config{}), scorer)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range pages(t, st) {
			got = append(got, strings.TrimPrefix(p.url, s.Server.URL))
		}
		fetched := strings.Join(got, " ")
		if !on {
			if fetched != "/" {
				t.Errorf("without sitemaps: fetched %s, want only /", fetched)
			}
			continue
		}
		if fetched != "/ /courses/databases.html" || sum.Finish != "frontier empty" {
			t.Errorf("with sitemaps: fetched %s (%s), want / /courses/databases.html", fetched, sum.Finish)
		}
		sms, err := st.Sitemaps(context.Background(), sum.Crawl)
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, sm := range sms {
			rows = append(rows, fmt.Sprintf("%s %d index=%v entries=%d %s", strings.TrimPrefix(sm.URL, s.Server.URL), sm.Status, sm.Index, sm.Entries, sm.Failure))
		}
		want := []string{
			"/broken.xml 200 index=false entries=0 sitemap: malformed sitemap: XML syntax error on line 1: unexpected EOF",
			"/huge.xml.gz 200 index=false entries=0 sitemap: sitemap too large: more than 10485760 bytes",
			"/sitemap.xml 200 index=true entries=1 ",
			"/pages.xml.gz 200 index=false entries=2 ",
		}
		if strings.Join(rows, "\n") != strings.Join(want, "\n") {
			t.Errorf("sitemaps recorded:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
		}
		var lastmod string
		if err := st.DB().QueryRow(`SELECT lastmod FROM sitemap_urls WHERE url LIKE '%databases.html'`).Scan(&lastmod); err != nil || !strings.HasPrefix(lastmod, "2026-01-05T00:00:00") {
			t.Errorf("lastmod %q, %v", lastmod, err)
		}
		if s.Hits("/misc/photos-of-cats.html") != 0 {
			t.Errorf("the off-topic sitemap URL was fetched")
		}
	}
}

func TestCrawler_Run_sitemapsOnlyOfSitesThatAnswer(t *testing.T) {
	// Every URL of the site dead is a 404; the first URL fetched from the
	// site live is one too, the next is its home page. Sitemaps are read
	// once, of live, at its home page: a host that answered only errors
	// is not asked.
	sitemap := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.Write([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://` + r.Host + `/listed.html</loc></url></urlset>`))
	}
	dead := crawlertest.NewSite(t, map[string]string{}, map[string]http.HandlerFunc{"/sitemap.xml": sitemap})
	live := crawlertest.NewSite(t, map[string]string{
		"/":            `<html><body>Home page.</body></html>`,
		"/listed.html": `<html><body>Listed only in the sitemap.</body></html>`,
	}, map[string]http.HandlerFunc{"/sitemap.xml": sitemap})
	st := openStore(t)
	c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 1, Sitemaps: true}, st, crawlertest.NewFetcher(t, fetch.Config{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{dead.URL("/gone"), live.URL("/gone"), live.URL("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if n := dead.Hits("/sitemap.xml"); n != 0 {
		t.Errorf("the sitemap of a site that answered only 404s was asked %d times", n)
	}
	if n := live.Hits("/sitemap.xml"); n != 1 {
		t.Errorf("the sitemap of the live site was asked %d times, want once", n)
	}
	if n := live.Hits("/listed.html"); n != 1 {
		t.Errorf("the URL its sitemap lists was fetched %d times, want once", n)
	}
	sms, err := st.Sitemaps(context.Background(), sum.Crawl)
	if err != nil {
		t.Fatal(err)
	}
	if len(sms) != 1 || !strings.HasPrefix(sms[0].URL, live.Server.URL) {
		t.Errorf("sitemaps recorded: %+v, want the live site's only", sms)
	}
}
