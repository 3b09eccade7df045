package segment

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/korean"

	"github.com/scent-crawler/scent/urlnorm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/segment")

const testPageURL = "http://www.example.edu/dept/courses/index.html"

// caseArgs is the optional args.json of a golden case.
type caseArgs struct {
	URL         string  `json:"url"`
	ContentType string  `json:"content_type"`
	Options     Options `json:"options"`
}

// goldenPage is the JSON form of a Page in golden files.
type goldenPage struct {
	URL       string          `json:"url"`
	Base      string          `json:"base"`
	Title     string          `json:"title"`
	Charset   string          `json:"charset"`
	Dropped   int             `json:"dropped"`
	Truncated bool            `json:"truncated"`
	Text      string          `json:"text"`
	Tokens    []string        `json:"tokens"`
	Segments  []goldenSegment `json:"segments"`
}

type goldenSegment struct {
	URL       string   `json:"url"`
	Rel       string   `json:"rel,omitempty"`
	Before    []string `json:"before"`
	Anchor    []string `json:"anchor"`
	After     []string `json:"after"`
	URLTokens []string `json:"url_tokens,omitempty"`
}

func toGolden(p *Page) goldenPage {
	g := goldenPage{
		URL: p.URL.String(), Base: p.Base.String(), Title: p.Title, Charset: p.Charset,
		Dropped: p.Dropped, Truncated: p.Truncated, Text: p.Text, Tokens: p.Tokens,
	}
	for _, s := range p.Segments {
		g.Segments = append(g.Segments, goldenSegment{
			URL: s.URL.String(), Rel: s.Rel, Before: s.Before, Anchor: s.Anchor, After: s.After,
			URLTokens: s.URLTokens,
		})
	}
	return g
}

func TestSplit_golden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "segment", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			input, err := os.ReadFile(filepath.Join(dir, "input.html"))
			if err != nil {
				t.Fatal(err)
			}
			args := caseArgs{URL: testPageURL, ContentType: "text/html"}
			if b, err := os.ReadFile(filepath.Join(dir, "args.json")); err == nil {
				if err := json.Unmarshal(b, &args); err != nil {
					t.Fatalf("args.json: %v", err)
				}
			}
			page, err := Split(input, args.ContentType, urlnorm.MustParse(args.URL), args.Options)
			if err != nil {
				t.Fatal(err)
			}
			checkPage(t, page, args.Options)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(toGolden(page)); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			golden := filepath.Join(dir, "golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (rerun with -update after checking):\n%s", golden, got)
			}
		})
	}
}

// checkPage asserts the invariants every page must satisfy.
func checkPage(t *testing.T, p *Page, opts Options) {
	t.Helper()
	w := opts.window()
	if !opts.StopWords && !p.Truncated {
		if want := Tokenize(p.Text, nil); !slices.Equal(p.Tokens, want) {
			t.Errorf("Tokens differ from Tokenize(Text):\n got %q\nwant %q", p.Tokens, want)
		}
	}
	for i, s := range p.Segments {
		if s.URL.IsZero() {
			t.Errorf("segment %d has no URL", i)
		} else if again, err := urlnorm.Parse(s.URL.String()); err != nil || again != s.URL {
			t.Errorf("segment %d URL %q is not normalized: %v", i, s.URL, err)
		}
		if len(s.Before) > w || len(s.After) > w {
			t.Errorf("segment %d: window %d, before %d, after %d tokens", i, w, len(s.Before), len(s.After))
		}
	}
}

func TestSplit_goldenExpectations(t *testing.T) {
	// Spot checks of the golden outputs that state the rules in code, so a
	// careless -update cannot silently change them.
	split := func(t *testing.T, name string, opts Options) *Page {
		t.Helper()
		input, err := os.ReadFile(filepath.Join("testdata", "segment", name, "input.html"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Split(input, "text/html", urlnorm.MustParse(testPageURL), opts)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	urls := func(p *Page) []string {
		var out []string
		for _, s := range p.Segments {
			out = append(out, s.URL.String())
		}
		return out
	}

	t.Run("overlap", func(t *testing.T) {
		p := split(t, "overlap", Options{Window: 3})
		if len(p.Segments) != 3 {
			t.Fatalf("%d segments, want 3", len(p.Segments))
		}
		s1, s2 := p.Segments[0], p.Segments[1]
		if want := []string{"covers", "sorting", "week"}; !slices.Equal(s1.After, want) {
			t.Errorf("first After = %q, want %q", s1.After, want)
		}
		if want := []string{"one", "covers", "sorting"}; !slices.Equal(s2.Before, want) {
			t.Errorf("second Before = %q, want %q", s2.Before, want)
		}
		if want := []string{"graphs", "shortest", "paths"}; !slices.Equal(p.Segments[2].After, want) {
			t.Errorf("third After = %q, want %q", p.Segments[2].After, want)
		}
		if p.Title != "Overlapping windows" || slices.Contains(p.Tokens, "overlapping") {
			t.Errorf("title %q must not be in the stream %q", p.Title, p.Tokens)
		}
	})
	t.Run("same-target", func(t *testing.T) {
		p := split(t, "same-target", Options{})
		want := []string{
			"http://www.example.edu/projects/corba/",
			"http://www.example.edu/projects/corba/",
			"http://www.example.edu/projects/corba/",
			"http://www.example.edu/projects/corba/index.html",
		}
		if got := urls(p); !slices.Equal(got, want) {
			t.Errorf("URLs = %q, want %q", got, want)
		}
	})
	t.Run("base-href", func(t *testing.T) {
		p := split(t, "base-href", Options{})
		want := []string{
			"http://mirror.example.org/archive/1996/papers.html",
			"http://mirror.example.org/archive/talks/",
			"http://mirror.example.org/",
			"https://secure.example.com/login",
		}
		if got := urls(p); !slices.Equal(got, want) {
			t.Errorf("URLs = %q, want %q", got, want)
		}
		if p.Base.String() != "http://mirror.example.org/archive/1996/" {
			t.Errorf("Base = %q", p.Base)
		}
	})
	t.Run("relative", func(t *testing.T) {
		p := split(t, "relative", Options{})
		want := []string{
			"http://www.example.edu/dept/up.html",
			"http://www.example.edu/dept/courses/sub/page.html",
			"http://www.example.edu/root.html",
			"http://cdn.example.net/slides.pdf",
			"http://www.example.edu/dept/courses/index.html?term=fall",
			"http://www.example.edu/dept/courses/y/",
			"http://www.example.edu/dept/courses/spaced.html",
			"http://www.example.edu/dept/courses/newline.html",
		}
		if got := urls(p); !slices.Equal(got, want) {
			t.Errorf("URLs = %q, want %q", got, want)
		}
	})
	t.Run("dropped", func(t *testing.T) {
		p := split(t, "dropped", Options{})
		if got := urls(p); !slices.Equal(got, []string{"http://www.example.edu/dept/courses/kept.html"}) {
			t.Errorf("URLs = %q", got)
		}
		if p.Dropped != 11 {
			t.Errorf("Dropped = %d, want 11", p.Dropped)
		}
	})
	t.Run("alt-title", func(t *testing.T) {
		p := split(t, "alt-title", Options{})
		want := []string{"welcome", "cs", "logo", "computer", "science", "department"}
		if got := p.Segments[0].Anchor; !slices.Equal(got, want) {
			t.Errorf("Anchor = %q, want %q", got, want)
		}
		if got := p.Segments[1].Anchor; !slices.Equal(got, []string{"faculty", "students"}) {
			t.Errorf("image-only Anchor = %q", got)
		}
		if slices.Contains(p.Tokens, "logo") {
			t.Errorf("alt text leaked into the stream: %q", p.Tokens)
		}
	})
	t.Run("script-style", func(t *testing.T) {
		p := split(t, "script-style", Options{})
		want := []string{"visible", "before", "visible", "real", "link", "after"}
		if !slices.Equal(p.Tokens, want) {
			t.Errorf("Tokens = %q, want %q", p.Tokens, want)
		}
		if got := urls(p); !slices.Equal(got, []string{"http://www.example.edu/dept/courses/real.html"}) {
			t.Errorf("URLs = %q", got)
		}
		if p.Title != "Skipped elements" {
			t.Errorf("Title = %q", p.Title)
		}
	})
	t.Run("area", func(t *testing.T) {
		p := split(t, "area", Options{})
		if len(p.Segments) != 2 {
			t.Fatalf("%d segments, want 2", len(p.Segments))
		}
		a := p.Segments[0]
		if want := []string{"main", "library", "library", "hours"}; !slices.Equal(a.Anchor, want) {
			t.Errorf("Anchor = %q, want %q", a.Anchor, want)
		}
		if want := []string{"campus", "map"}; !slices.Equal(a.Before, want) {
			t.Errorf("Before = %q, want %q", a.Before, want)
		}
		if p.Segments[1].Rel != "nofollow" {
			t.Errorf("Rel = %q", p.Segments[1].Rel)
		}
	})
	t.Run("broken", func(t *testing.T) {
		p := split(t, "broken", Options{})
		anchors := map[string][]string{}
		for _, s := range p.Segments {
			anchors[s.URL.String()] = s.Anchor
		}
		base := "http://www.example.edu/dept/courses/"
		want := map[string][]string{
			base + "one.html":   {"first", "link", "still", "inside", "first"},
			base + "two.html":   {"second", "link"},
			base + "three.html": {"third"},
			base + "four.html":  {"fourth", "interrupts", "third"},
			base + "five.html":  {"fifth", "never", "closed"},
		}
		if !reflect.DeepEqual(anchors, want) {
			t.Errorf("anchors = %q, want %q", anchors, want)
		}
	})
	t.Run("entities", func(t *testing.T) {
		p := split(t, "entities", Options{})
		if p.Title != "Café & Co" {
			t.Errorf("Title = %q", p.Title)
		}
		for _, w := range []string{"café", "it", "'s", "do", "n't", "<daily>", "fish", "chips", "served"} {
			if !slices.Contains(p.Tokens, w) {
				t.Errorf("token %q missing from %q", w, p.Tokens)
			}
		}
		want := []string{
			"http://www.example.edu/dept/courses/menu.html?day=1&lang=en",
			"http://www.example.edu/dept/courses/caf%C3%A9.html",
		}
		if got := urls(p); !slices.Equal(got, want) {
			t.Errorf("URLs = %q, want %q", got, want)
		}
	})
	t.Run("url-tokens-stopwords", func(t *testing.T) {
		p := split(t, "url-tokens-stopwords", Options{URLTokens: true, StopWords: true, Window: 4})
		if want := []string{"corba", "intro"}; !slices.Equal(p.Segments[0].URLTokens, want) {
			t.Errorf("URLTokens = %q, want %q", p.Segments[0].URLTokens, want)
		}
		if want := []string{"scal", "papers", "fault", "tolerance", "96", "ps"}; !slices.Equal(p.Segments[1].URLTokens, want) {
			t.Errorf("URLTokens = %q, want %q", p.Segments[1].URLTokens, want)
		}
		if want := []string{"café"}; !slices.Equal(p.Segments[2].URLTokens, want) {
			t.Errorf("URLTokens = %q, want %q", p.Segments[2].URLTokens, want)
		}
		if want := []string{"introduction", "corba", "standard"}; !slices.Equal(p.Segments[0].Anchor, want) {
			t.Errorf("Anchor without stop words = %q, want %q", p.Segments[0].Anchor, want)
		}
		for _, w := range p.Tokens {
			if IsStopWord(w) {
				t.Errorf("stop word %q in stream", w)
			}
		}
	})
}

func TestSplit_charsets(t *testing.T) {
	const koreanPage = `<html><head><title>한국어 페이지</title></head><body>
<p>자연어 처리 연구실의 <a href="/research/">연구 과제</a> 목록입니다.</p></body></html>`
	eucKR, err := korean.EUCKR.NewEncoder().String(koreanPage)
	if err != nil {
		t.Fatal(err)
	}
	const western = `<html><body><p>Résumé of the café owner – naïve “quotes” and <a href="x.html">Señor Müller</a></p></body></html>`
	cp1252, err := charmap.Windows1252.NewEncoder().String(western)
	if err != nil {
		t.Fatal(err)
	}
	metaKR := `<html><head><meta charset="euc-kr"></head>` + eucKR[len("<html>"):]
	metaLatin := `<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"></head>` + cp1252[len("<html>"):]

	tests := []struct {
		name        string
		body        string
		contentType string
		charset     string
		tokens      []string
		anchor      []string
	}{
		{"euc-kr from header", eucKR, "text/html; charset=EUC-KR", "euc-kr",
			[]string{"자연어", "처리", "연구실의", "연구", "과제", "목록입니다"}, []string{"연구", "과제"}},
		{"euc-kr from meta", metaKR, "text/html", "euc-kr",
			[]string{"자연어", "처리", "연구실의", "연구", "과제", "목록입니다"}, []string{"연구", "과제"}},
		{"windows-1252 undeclared", cp1252, "text/html", "windows-1252",
			[]string{"résumé", "of", "the", "café", "owner", "naïve", "quotes", "and", "señor", "müller"},
			[]string{"señor", "müller"}},
		{"latin-1 meta means windows-1252", metaLatin, "", "windows-1252",
			[]string{"résumé", "of", "the", "café", "owner", "naïve", "quotes", "and", "señor", "müller"},
			[]string{"señor", "müller"}},
		{"utf-8 undeclared", western, "text/html", "utf-8",
			[]string{"résumé", "of", "the", "café", "owner", "naïve", "quotes", "and", "señor", "müller"},
			[]string{"señor", "müller"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Split([]byte(tt.body), tt.contentType, urlnorm.MustParse(testPageURL), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Charset != tt.charset {
				t.Errorf("Charset = %q, want %q", p.Charset, tt.charset)
			}
			if !slices.Equal(p.Tokens, tt.tokens) {
				t.Errorf("Tokens = %q, want %q", p.Tokens, tt.tokens)
			}
			if len(p.Segments) != 1 || !slices.Equal(p.Segments[0].Anchor, tt.anchor) {
				t.Errorf("Segments = %+v, want one with anchor %q", p.Segments, tt.anchor)
			}
		})
	}
}

func TestSplit_headerBeatsMeta(t *testing.T) {
	body, err := korean.EUCKR.NewEncoder().String(`<html><head><meta charset="windows-1252"></head><body>대한민국 서울</body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Split([]byte(body), "text/html; charset=euc-kr", urlnorm.URL{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Charset != "euc-kr" || !slices.Equal(p.Tokens, []string{"대한민국", "서울"}) {
		t.Errorf("Charset %q, Tokens %q; want euc-kr [대한민국 서울]", p.Charset, p.Tokens)
	}
	// Without the header, the meta element decides, and the Korean bytes
	// become Latin letters.
	p, err = Split([]byte(body), "text/html", urlnorm.URL{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Charset != "windows-1252" || slices.Contains(p.Tokens, "서울") {
		t.Errorf("Charset %q, Tokens %q; want windows-1252 without Korean", p.Charset, p.Tokens)
	}
}

func TestSplit_errors(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...)
	tests := []struct {
		name        string
		body        []byte
		contentType string
		want        error
	}{
		{"NUL bytes", []byte("<html><body>a\x00b</body></html>"), "text/html", ErrBinary},
		{"PNG declared as HTML", png, "text/html", ErrBinary},
		{"image type", []byte("GIF89a..."), "image/gif", ErrBinary},
		{"PDF type", []byte("%PDF-1.4 ..."), "application/pdf", ErrBinary},
		{"sniffed binary", []byte("\x01\x02\x03\x04 binary"), "application/octet-stream", ErrBinary},
		{"replacement charset", []byte("<p>text</p>"), "text/html; charset=iso-2022-kr", ErrCharset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Split(tt.body, tt.contentType, urlnorm.MustParse(testPageURL), Options{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Split error = %v, want %v", err, tt.want)
			}
			if p != nil {
				t.Errorf("Split returned a page with an error")
			}
		})
	}
}

func TestSplit_limits(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body>")
	for i := 0; i < 500; i++ {
		b.WriteString(`<p>word word <a href="/l">link text</a> more words</p>`)
	}
	body := []byte(b.String())
	pageURL := urlnorm.MustParse(testPageURL)

	full, err := Split(body, "text/html", pageURL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if full.Truncated || len(full.Tokens) != 3000 || len(full.Segments) != 500 {
		t.Fatalf("full page: truncated %v, %d tokens, %d segments", full.Truncated, len(full.Tokens), len(full.Segments))
	}

	p, err := Split(body, "text/html", pageURL, Options{MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Truncated || len(p.Tokens) != 100 {
		t.Errorf("MaxTokens 100: truncated %v, %d tokens", p.Truncated, len(p.Tokens))
	}
	if !slices.Equal(p.Tokens, full.Tokens[:len(p.Tokens)]) {
		t.Errorf("truncated stream is not a prefix of the full one")
	}
	if len(p.Segments) != 17 {
		t.Errorf("MaxTokens 100: %d segments, want the 17 links within the first 100 words", len(p.Segments))
	}

	p, err = Split(body, "text/html", pageURL, Options{MaxLinks: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Truncated || len(p.Segments) != 7 {
		t.Errorf("MaxLinks 7: truncated %v, %d segments", p.Truncated, len(p.Segments))
	}

	// A page of one huge word and one huge run of punctuation stays linear
	// and bounded.
	huge := []byte("<p>" + strings.Repeat("a", 1<<20) + " " + strings.Repeat(")", 1<<20) + "</p>")
	p, err = Split(huge, "text/html", pageURL, Options{MaxTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tokens) != 1 || len(p.Tokens[0]) != 1<<20 {
		t.Errorf("huge word: %d tokens", len(p.Tokens))
	}
}

// TestSplit_hugeToken: a token longer than maxTokenBytes (a tag of a
// million attributes, a comment, a script) ends the reading of the page:
// the links and words before it are kept and the page is Truncated. The
// tokenizer would otherwise hold the whole token, and a tag's attributes
// cost several times their bytes.
func TestSplit_hugeToken(t *testing.T) {
	head := `<html><body><p>before words <a href="/first">first link</a></p>`
	tail := `<p>after words <a href="/last">last link</a></p></body></html>`
	var attrs strings.Builder
	for i := 0; attrs.Len() <= maxTokenBytes; i++ {
		fmt.Fprintf(&attrs, ` a%d="v"`, i)
	}
	for name, middle := range map[string]string{
		"tag":     "<div" + attrs.String() + ">x</div>",
		"comment": "<!--" + strings.Repeat("-", maxTokenBytes+1) + "-->",
		"script":  "<script>" + strings.Repeat("a=1;", maxTokenBytes/4+1) + "</script>",
	} {
		p, err := Split([]byte(head+middle+tail), "text/html", urlnorm.MustParse(testPageURL), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !p.Truncated || !slices.Equal(p.Tokens, []string{"before", "words", "first", "link"}) || len(p.Segments) != 1 {
			t.Errorf("%s: truncated %v, tokens %q, %d segments; want the words and link before it", name, p.Truncated, p.Tokens, len(p.Segments))
		}
	}
	// Just under the bound, the page is read whole.
	p, err := Split([]byte(head+"<!--"+strings.Repeat("-", maxTokenBytes/2)+"-->"+tail), "text/html", urlnorm.MustParse(testPageURL), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Truncated || len(p.Segments) != 2 {
		t.Errorf("a comment of half the bound: truncated %v, %d segments", p.Truncated, len(p.Segments))
	}
}

func TestSplit_plainText(t *testing.T) {
	body := []byte("Plain <b>text</b> file\nwith <a href=\"x\">no links</a>.")
	p, err := Split(body, "text/plain; charset=us-ascii", urlnorm.MustParse(testPageURL), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"plain", "<b>text</b>", "file", "with", "<a", "href=\"x\">no", "links</a>"}
	if !slices.Equal(p.Tokens, want) || len(p.Segments) != 0 {
		t.Errorf("Tokens = %q, %d segments; want %q and none", p.Tokens, len(p.Segments), want)
	}
}

func TestSplit_window(t *testing.T) {
	body := []byte(`<p>one two three four five <a href="/x">six</a> seven eight nine ten eleven twelve</p>`)
	tests := []struct {
		window        int
		before, after []string
	}{
		{0, []string{"one", "two", "three", "four", "five"}, []string{"seven", "eight", "nine", "ten", "eleven", "twelve"}},
		{2, []string{"four", "five"}, []string{"seven", "eight"}},
		{-1, nil, nil},
	}
	for _, tt := range tests {
		p, err := Split(body, "text/html", urlnorm.MustParse(testPageURL), Options{Window: tt.window})
		if err != nil {
			t.Fatal(err)
		}
		s := p.Segments[0]
		if !slices.Equal(s.Before, tt.before) || !slices.Equal(s.After, tt.after) {
			t.Errorf("Window %d: before %q after %q, want %q %q", tt.window, s.Before, s.After, tt.before, tt.after)
		}
		// Appending to a window must not overwrite the stream.
		_ = append(s.Before, "overwritten")
		if slices.Contains(p.Tokens, "overwritten") {
			t.Errorf("Window %d: appending to Before changed Page.Tokens", tt.window)
		}
	}
}

func TestSegment_Tokens(t *testing.T) {
	tests := []struct {
		seg  Segment
		dst  []string
		want []string
	}{
		{Segment{}, nil, nil},
		{Segment{Before: []string{"a"}, Anchor: []string{"b", "c"}, After: []string{"d"}}, nil, []string{"a", "b", "c", "d"}},
		{Segment{Anchor: []string{"b"}, URLTokens: []string{"corba", "intro"}}, []string{"x"}, []string{"x", "b", "corba", "intro"}},
	}
	for _, tt := range tests {
		if got := tt.seg.Tokens(tt.dst); !slices.Equal(got, tt.want) {
			t.Errorf("%+v.Tokens(%q) = %q, want %q", tt.seg, tt.dst, got, tt.want)
		}
	}
}

func TestURLTokens(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://example.com/corba/intro.html", "corba intro"},
		{"http://example.com/", ""},
		{"http://example.com/~scal/", "scal"},
		{"http://example.com/a/.htaccess", "a htaccess"},
		{"http://example.com/CS101/Notes_Week-3.PDF?x=1", "cs101 notes week 3"},
		{"http://example.com/%ED%95%9C%EA%B5%AD/", "한국"},
	}
	for _, tt := range tests {
		got := strings.Join(urlTokens(urlnorm.MustParse(tt.url)), " ")
		if got != tt.want {
			t.Errorf("urlTokens(%s) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func FuzzSplit(f *testing.F) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "segment", "*", "input.html"))
	for _, d := range dirs {
		if b, err := os.ReadFile(d); err == nil {
			f.Add(b, "text/html")
		}
	}
	f.Add([]byte(`<a href="x">a<a href=y>b</a></a><area href=z alt=q><base href=//h/>`), "")
	f.Add([]byte("<meta charset=euc-kr><p>\xb0\xa1 <a href=\"\xb0\xa1\">x</a>"), "text/html")
	f.Add([]byte("<p>It’s &rsquo;n't <a href=../..//x?y#z>İ'S</a>"), "text/html; charset=utf-8")
	f.Add([]byte("plain text"), "text/plain")
	pageURL := urlnorm.MustParse(testPageURL)
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		opts := Options{Window: 3, URLTokens: true, MaxTokens: 1000}
		p, err := Split(body, contentType, pageURL, opts)
		if err != nil {
			if !errors.Is(err, ErrBinary) && !errors.Is(err, ErrCharset) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		checkPage(t, p, opts)
		if len(p.Tokens) > opts.MaxTokens {
			t.Errorf("%d tokens beyond MaxTokens", len(p.Tokens))
		}
	})
}

// benchPage reads the benchmark fixture, a hand-written page of the size
// and shape of an average page of the corpus.
func benchPage(b *testing.B) []byte {
	body, err := os.ReadFile(filepath.Join("testdata", "bench", "page.html"))
	if err != nil {
		b.Fatal(err)
	}
	return body
}

func BenchmarkSplit(b *testing.B) {
	body := benchPage(b)
	pageURL := urlnorm.MustParse(testPageURL)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Split(body, "text/html", pageURL, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
