package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"strings"
)

const size = 9 << 20

func main() {
	listen := flag.String("listen", "127.0.0.1:18777", "address to listen on")
	flag.Parse()
	pages := hostilePages()
	bomb := gzipBomb()
	bigHeader := strings.Repeat("a", 8<<20)
	big := bigPage()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
			return
		case "/gzipbomb":
			w.Header().Set("Content-Type", "text/html; x=gzip")
			w.Write(bomb) //nolint:errcheck // the client may have gone
			return
		case "/bigheader":
			w.Header().Set("X-Big", bigHeader)
		}
		if strings.HasPrefix(r.URL.Path, "/big/") {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><head><title>" + r.URL.Path + "</title></head>")) //nolint:errcheck // the client may have gone
			w.Write(big)                                                            //nolint:errcheck // the client may have gone
			return
		}
		p, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(p)) //nolint:errcheck // the client may have gone
	})
	log.Printf("serving on %s", *listen)
	log.Fatal(http.ListenAndServe(*listen, nil))
}

// hostilePages returns the pages by path, the examples' among them.
func hostilePages() map[string]string {
	p := map[string]string{
		"/small":     `<html><body>a small page about web crawlers <a href="/c0">crawling</a></body></html>`,
		"/bigheader": `<html><body>a page whose header is long</body></html>`,
		"/giantword": "<html><body>" + strings.Repeat("a", size) + "</body></html>",
		"/nested":    "<html><body>" + strings.Repeat("<div>", size/5) + "web crawler</body></html>",
		"/comment":   "<html><body><!--" + strings.Repeat("-", size) + "--> web crawler</body></html>",
		"/script":    "<html><body><script>" + strings.Repeat("var a=1;", size/8) + "</script>web crawler</body></html>",
		"/longurl":   `<html><body><a href="/` + strings.Repeat("x", 1<<20) + `">web crawler</a></body></html>`,
	}
	var b strings.Builder
	b.WriteString("<html><body>")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `<a href="/l/%d">crawler link %d</a> `, i, i)
	}
	p["/manylinks"] = b.String()
	b.Reset()
	b.WriteString("<html><body>")
	r := rand.New(rand.NewPCG(1, 2))
	for b.Len() < size {
		for range 8 {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		b.WriteByte(' ')
	}
	p["/manywords"] = b.String()
	b.Reset()
	b.WriteString("<html><body>")
	for i := range 48 {
		fmt.Fprintf(&b, `<a href="/big/%d">web crawler page %d</a> `, i, i)
	}
	p["/large"] = b.String()
	b.Reset()
	b.WriteString("<html><body><a")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, ` a%d="v"`, i)
	}
	b.WriteString(` href="/c0">web crawler</a></body></html>`)
	p["/attrs"] = b.String()
	for i := range 6 {
		p[fmt.Sprintf("/c%d", i)] = fmt.Sprintf(`<html><body>web crawler focused crawling search engine index robots sitemap frontier %d <a href="/c%d">crawler</a></body></html>`, i, (i+1)%6)
		p[fmt.Sprintf("/o%d", i)] = fmt.Sprintf(`<html><body>bread football opera volcano jazz cooking %d</body></html>`, i)
	}
	return p
}

// bigPage returns the body of the pages under /big/: 9 MB of paragraphs
// of ordinary words, as compressible as a real page's text.
func bigPage() []byte {
	words := strings.Fields("web crawler focused crawling search engine index robots sitemap frontier page link anchor text topic scent model bread football opera volcano jazz cooking")
	r := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	b.WriteString("<body>")
	for b.Len() < size {
		b.WriteString("<p>")
		for range 40 {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		b.WriteString("</p>\n")
	}
	b.WriteString("</body></html>")
	return b.Bytes()
}

// gzipBomb returns 200 MB of markup gzipped.
func gzipBomb() []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression) // the level is valid
	chunk := []byte(strings.Repeat("<p>bomb</p>", 1<<16))
	for n := 0; n < 200<<20; n += len(chunk) {
		zw.Write(chunk) //nolint:errcheck // a bytes.Buffer does not fail
	}
	zw.Close() //nolint:errcheck // a bytes.Buffer does not fail
	return b.Bytes()
}
