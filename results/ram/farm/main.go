package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
)

var (
	courseWords = strings.Fields("course syllabus lecture homework assignment exam midterm final instructor office hours grading textbook readings semester prerequisites tutorial lab problem set solutions schedule")
	otherWords  = strings.Fields("offers cheap deals every day click here for more great value links pages products partners news weather sports travel recipes music photos blog events shop contact about team careers press")
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18600", "address to serve on")
	hosts := flag.Uint64("hosts", 1_000_000, "host names the pages link to: h0.farm.test … hN-1.farm.test")
	big := flag.Uint64("big", 0, "make one page in N 1 to 9 MB long; 0: none")
	flag.Parse()
	if *hosts == 0 {
		log.Fatal("farm: --hosts must be at least 1")
	}
	log.Fatal(http.ListenAndServe(*listen, farm{hosts: *hosts, big: *big}))
}

// farm is the handler of every host.
type farm struct{ hosts, big uint64 }

// rng is a linear congruential generator: a page's content is a
// function of its URL.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s = r.s*6364136223846793005 + 1442695040888963407
	return r.s >> 11
}

// words writes n words drawn from list, each followed by a space.
func (r *rng) words(b *strings.Builder, list []string, n int) {
	for range n {
		b.WriteString(list[r.next()%uint64(len(list))])
		b.WriteByte(' ')
	}
}

func (f farm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	path := r.URL.Path
	sum := fnv.New64a()
	fmt.Fprint(sum, host, path, "?", r.URL.RawQuery)
	rd := &rng{sum.Sum64()}
	var b strings.Builder
	switch {
	case path == "/robots.txt":
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		return
	case path == "/sitemap.xml":
		hs := fnv.New64a()
		fmt.Fprint(hs, host)
		if hs.Sum64()%10 != 0 {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for range 20 {
			fmt.Fprintf(&b, "<url><loc>http://%s/p/sm%x.html</loc></url>", host, rd.next())
		}
		b.WriteString("</urlset>")
		fmt.Fprint(w, b.String())
		return
	case path != "/" && !strings.HasSuffix(path, ".html"):
		http.NotFound(w, r)
		return
	}
	course := strings.HasPrefix(path, "/c/")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if !course && rd.s%10 == 0 {
		parked(&b, rd.next())
		fmt.Fprint(w, b.String())
		return
	}
	fmt.Fprintf(&b, "<html><head><title>%s %x</title></head><body>", host, rd.s&0xffff)
	for range 4 {
		b.WriteString("<p>")
		if course {
			rd.words(&b, courseWords, 30)
			rd.words(&b, otherWords, 10)
		} else {
			rd.words(&b, otherWords, 40)
		}
		b.WriteString("</p>")
	}
	b.WriteString("<ul>")
	for range 50 + rd.next()%151 {
		f.link(&b, rd, course)
	}
	b.WriteString("</ul>")
	if f.big > 0 && rd.s%f.big == 1 {
		// A long page: paragraphs of words up to a size of 1 to 9 MB.
		size := (1 + int(rd.next()%9)) << 20
		for b.Len() < size {
			b.WriteString("<p>")
			rd.words(&b, otherWords, 200)
			b.WriteString("</p>\n")
		}
	}
	b.WriteString("</body></html>")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	fmt.Fprint(w, b.String())
}

// link writes one list item with a link to a new page: a course page
// for a quarter of the links of a page that is not about a course and
// for half of those of one that is, its anchor and the words
// before it a course's when its target is one.
func (f farm) link(b *strings.Builder, rd *rng, course bool) {
	v := rd.next()
	toCourse := v%4 == 0 || course && v%2 == 0
	dir, words := "p", otherWords
	if toCourse {
		dir, words = "c", courseWords
	}
	target := fmt.Sprintf("/%s/%x.html", dir, v>>8)
	switch {
	case v%5 < 2:
		target = fmt.Sprintf("http://h%d.farm.test%s", (v>>20)%f.hosts, target)
	case v%23 == 0:
		target += fmt.Sprintf("?sid=%x", rd.next()&0xfff)
	}
	b.WriteString("<li>")
	rd.words(b, words, 3)
	fmt.Fprintf(b, `<a href="%s">`, target)
	rd.words(b, words, 2)
	b.WriteString("</a> ")
	rd.words(b, otherWords, 3)
	b.WriteString("</li>")
}

// parked writes the page of a parked domain, the same words on every
// host, with one link.
func parked(b *strings.Builder, next uint64) {
	b.WriteString("<html><head><title>parked domain</title></head><body><p>")
	(&rng{42}).words(b, otherWords, 150)
	fmt.Fprintf(b, `</p><a href="/p/%x.html">more</a></body></html>`, next)
}
